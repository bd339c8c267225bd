// libFuzzer target for the PROXY protocol header parser: any input must give a header, "read
// more" or a refusal, never a crash or a read past the input; a parsed header's addresses must
// encode to a header that parses again. Built only with -DVIGIL_FUZZ=ON and clang; run:
// fuzz_proxy_header corpus/
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "net/proxy_header.h"

using vigil::net::ProxyHeader;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A copy of exactly `size` bytes, so that ASan catches a read past the end.
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const ProxyHeader h = vigil::net::parse_proxy_header(bytes);
  if (h.status == ProxyHeader::Status::kInvalid && h.error.empty()) std::abort();
  if (h.status != ProxyHeader::Status::kDone) return 0;
  if (h.length == 0 || h.length > size || h.length > vigil::net::kMaxProxyHeaderIn) std::abort();
  // The header alone parses the same: nothing after it was looked at.
  if (vigil::net::parse_proxy_header(std::string_view(bytes).substr(0, h.length)).length !=
      h.length) {
    std::abort();
  }
  if (h.source.has_value() != h.destination.has_value()) std::abort();
  for (auto version : {vigil::net::ProxyVersion::kV1, vigil::net::ProxyVersion::kV2}) {
    std::array<char, vigil::net::kMaxProxyHeaderOut> out{};
    const size_t n = vigil::net::encode_proxy_header(
        version, h.source ? &*h.source : nullptr, h.destination ? &*h.destination : nullptr, out);
    const ProxyHeader again = vigil::net::parse_proxy_header({out.data(), n});
    if (again.status != ProxyHeader::Status::kDone || again.length != n) std::abort();
    if (again.source.has_value() != h.source.has_value()) std::abort();
    if (h.source && again.source->port() != h.source->port()) std::abort();
  }
  return 0;
}
