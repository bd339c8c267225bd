#include "net/netmask.h"

#include <arpa/inet.h>

#include <array>
#include <cstdint>
#include <string>

namespace vigil::net {

Result<Netmask> parse_netmask(std::string_view text) {
  const std::string s(text);
  std::array<uint8_t, 16> bytes{};
  Netmask out;
  size_t size = 4;
  if (inet_pton(AF_INET, s.c_str(), bytes.data()) != 1) {
    if (inet_pton(AF_INET6, s.c_str(), bytes.data()) != 1) {
      return fail("\"" + s + "\" is not a netmask; use one like 255.255.255.0 or ffff:ffff::");
    }
    out.v6 = true;
    size = 16;
  }
  int ones = 0;
  bool zero_seen = false;
  for (size_t bit = 0; bit < size * 8; ++bit) {
    const bool one = (bytes[bit / 8] & (0x80u >> (bit % 8))) != 0;
    if (one && zero_seen) {
      return fail("\"" + s + "\" is not a netmask: its one bits must come first");
    }
    if (one) ++ones;
    zero_seen |= !one;
  }
  out.prefix = ones;
  return out;
}

}  // namespace vigil::net
