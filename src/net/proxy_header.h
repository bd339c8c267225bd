// The PROXY protocol header (versions 1 and 2, as HAProxy specifies them): encoding the one vigil
// writes to a member before the client's first byte, and parsing the one an upstream load
// balancer writes to vigil. Pure functions on bytes, any thread; no allocation on the data path.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "net/address.h"

namespace vigil::net {

enum class ProxyVersion : uint8_t { kV1 = 1, kV2 = 2 };

// The longest header encode_proxy_header() writes: a v1 TCP6 line is at most 104 bytes, a v2
// IPv6 header 52.
inline constexpr size_t kMaxProxyHeaderOut = 108;
// The longest header parse_proxy_header() accepts: a v1 line may have 107 bytes (the spec's
// limit); a v2 header is 16 bytes and up to this many more of addresses and TLVs (which are
// skipped). Longer is refused rather than buffered: nobody sends kilobytes of TLVs to an L4 proxy.
inline constexpr size_t kMaxProxyV1Line = 107;
inline constexpr size_t kMaxProxyV2Body = 2048;
inline constexpr size_t kMaxProxyHeaderIn = 16 + kMaxProxyV2Body;

// Writes the header for a connection from `source` to `destination` into `out` and returns its
// length. Without both addresses, or for a family other than IPv4 and IPv6, it writes v1's
// "PROXY UNKNOWN" or v2's LOCAL command: what HAProxy sends on its health checks, and what a
// receiver takes as "use the connection's own addresses". IPv4-mapped IPv6 addresses (a
// dual-stack listener's IPv4 clients) are written as IPv4; when one address is IPv4 and the
// other IPv6, the IPv4 one is written mapped, as IPv6.
size_t encode_proxy_header(ProxyVersion version, const SocketAddress* source,
                           const SocketAddress* destination,
                           std::span<char, kMaxProxyHeaderOut> out);

struct ProxyHeader {
  enum class Status : uint8_t {
    kIncomplete,  // a prefix of a header so far: read more (within the timeout)
    kDone,
    kInvalid,  // not a PROXY header, or a malformed or oversized one: close the connection
  };
  Status status = Status::kIncomplete;
  size_t length = 0;  // kDone: the header's bytes, which come before the client's own
  // kDone: the addresses it carries; none for v1 UNKNOWN, v2 LOCAL, or v2 UNSPEC / UNIX families
  // (the connection's own addresses stand).
  std::optional<SocketAddress> source;
  std::optional<SocketAddress> destination;
  std::string_view error;  // kInvalid: why, for the log line (a static string)
};

// Parses the start of what a connection received. Only the first `bytes` are looked at; nothing
// is kept between calls, so the caller passes everything received so far each time.
ProxyHeader parse_proxy_header(std::string_view bytes);

}  // namespace vigil::net
