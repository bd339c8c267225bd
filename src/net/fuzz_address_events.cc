// libFuzzer target for the netlink address-event parser: any datagram must give events or none,
// never a crash or a read past the input, and every event must carry a whole address. Built only
// with -DVIGIL_FUZZ=ON and clang; run: fuzz_address_events corpus/
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "net/address_events.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A copy of exactly `size` bytes, so that ASan catches a read past the end.
  const std::vector<uint8_t> bytes(data, data + size);
  for (const vigil::net::AddressEvent& e : vigil::net::parse_address_events(bytes)) {
    if (e.ip.size() != 4 && e.ip.size() != 16) std::abort();
  }
  return 0;
}
