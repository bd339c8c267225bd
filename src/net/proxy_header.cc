#include "net/proxy_header.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <cstring>

namespace vigil::net {
namespace {

constexpr std::string_view kV2Signature{"\r\n\r\n\0\r\nQUIT\n", 12};
constexpr std::string_view kV1Prefix = "PROXY ";

// An address reduced to what the header carries: family, 4 or 16 bytes, port.
struct Endpoint {
  int family = AF_UNSPEC;
  std::array<uint8_t, 16> bytes{};
  uint16_t port = 0;
};

Endpoint endpoint_of(const SocketAddress& a) {
  Endpoint e;
  std::string_view ip = a.ip_bytes();
  e.port = a.port();
  ip = unmapped(ip);
  if (ip.size() == 4) e.family = AF_INET;
  if (ip.size() == 16) e.family = AF_INET6;
  std::copy(ip.begin(), ip.end(), e.bytes.begin());
  return e;
}

void map_to_v6(Endpoint& e) {
  if (e.family != AF_INET) return;
  std::array<uint8_t, 16> mapped{};
  mapped[10] = mapped[11] = 0xff;
  std::copy_n(e.bytes.begin(), 4, mapped.begin() + 12);
  e.bytes = mapped;
  e.family = AF_INET6;
}

size_t put(std::span<char, kMaxProxyHeaderOut> out, size_t at, std::string_view text) {
  std::copy(text.begin(), text.end(), out.begin() + static_cast<std::ptrdiff_t>(at));
  return at + text.size();
}

size_t encode_v1(const Endpoint* src, const Endpoint* dst,
                 std::span<char, kMaxProxyHeaderOut> out) {
  if (src == nullptr) return put(out, 0, "PROXY UNKNOWN\r\n");
  size_t at = put(out, 0, src->family == AF_INET ? "PROXY TCP4 " : "PROXY TCP6 ");
  for (const Endpoint* e : {src, dst}) {
    char ip[INET6_ADDRSTRLEN] = {};
    inet_ntop(e->family, e->bytes.data(), ip, sizeof ip);
    at = put(out, at, ip);
    at = put(out, at, " ");
  }
  for (const Endpoint* e : {src, dst}) {
    auto [end, ec] = std::to_chars(out.data() + at, out.data() + out.size(), e->port);
    at = static_cast<size_t>(end - out.data());
    at = put(out, at, e == src ? " " : "\r\n");
  }
  return at;
}

size_t encode_v2(const Endpoint* src, const Endpoint* dst,
                 std::span<char, kMaxProxyHeaderOut> out) {
  size_t at = put(out, 0, kV2Signature);
  const size_t address_size = src == nullptr ? 0 : src->family == AF_INET ? 4 : 16;
  out[at++] = src == nullptr ? '\x20' : '\x21';  // version 2; LOCAL or PROXY
  out[at++] = src == nullptr ? '\x00' : src->family == AF_INET ? '\x11' : '\x21';  // over TCP
  const size_t length = address_size * 2 + (src == nullptr ? 0 : 4);
  out[at++] = static_cast<char>(length >> 8);
  out[at++] = static_cast<char>(length & 0xff);
  if (src == nullptr) return at;
  for (const Endpoint* e : {src, dst}) {
    std::copy_n(e->bytes.begin(), address_size, out.begin() + static_cast<std::ptrdiff_t>(at));
    at += address_size;
  }
  for (const Endpoint* e : {src, dst}) {
    out[at++] = static_cast<char>(e->port >> 8);
    out[at++] = static_cast<char>(e->port & 0xff);
  }
  return at;
}

ProxyHeader invalid(std::string_view why) {
  return {.status = ProxyHeader::Status::kInvalid, .error = why};
}

SocketAddress address_from(int family, const uint8_t* ip, uint16_t port) {
  return SocketAddress::from_ip_bytes(
      {reinterpret_cast<const char*>(ip), family == AF_INET ? 4u : 16u}, port);
}

std::optional<uint16_t> port_of(std::string_view text) {
  // Digits only (no sign, no spaces), as the spec writes them; "0" alone but no leading zeros.
  if (text.empty() || text.size() > 5 || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > 65535) return std::nullopt;
  return static_cast<uint16_t>(value);
}

bool ip_of(int family, std::string_view text, uint8_t* out) {
  char buf[INET6_ADDRSTRLEN] = {};
  // inet_pton reads up to a NUL: "1.2.3.4\0zz" would pass as 1.2.3.4.
  if (text.empty() || text.size() >= sizeof buf || text.find('\0') != std::string_view::npos) {
    return false;
  }
  std::copy(text.begin(), text.end(), buf);
  return inet_pton(family, buf, out) == 1;
}

ProxyHeader parse_v1(std::string_view bytes) {
  const std::string_view start = bytes.substr(0, kV1Prefix.size());
  if (!kV1Prefix.starts_with(start)) return invalid("not a PROXY protocol header");
  const size_t lf = bytes.substr(0, kMaxProxyV1Line).find('\n');
  if (lf == std::string_view::npos) {
    if (bytes.size() >= kMaxProxyV1Line) return invalid("PROXY v1 line longer than 107 bytes");
    // A NUL, or a CR before the end, can never become a valid line: refused at once rather
    // than after the timeout.
    const size_t cr = bytes.find('\r');
    if (bytes.find('\0') != std::string_view::npos ||
        (cr != std::string_view::npos && cr + 1 < bytes.size())) {
      return invalid("PROXY v1 line with a stray control character");
    }
    return {};
  }
  if (lf < kV1Prefix.size() || bytes[lf - 1] != '\r') return invalid("PROXY v1 line without CRLF");
  std::string_view rest = bytes.substr(kV1Prefix.size(), lf - 1 - kV1Prefix.size());
  std::array<std::string_view, 5> fields;
  size_t count = 0;
  while (count < fields.size()) {
    const size_t space = rest.find(' ');
    fields[count++] = rest.substr(0, space);
    if (space == std::string_view::npos) {
      rest = {};
      break;
    }
    rest.remove_prefix(space + 1);
  }
  ProxyHeader h{.status = ProxyHeader::Status::kDone, .length = lf + 1};
  // UNKNOWN may be followed by anything (the spec lets a sender put the addresses it has).
  if (fields[0] == "UNKNOWN") return h;
  const int family = fields[0] == "TCP4" ? AF_INET : fields[0] == "TCP6" ? AF_INET6 : AF_UNSPEC;
  if (family == AF_UNSPEC) return invalid("PROXY v1 protocol other than TCP4, TCP6 or UNKNOWN");
  if (count != 5 || !rest.empty()) return invalid("PROXY v1 line without exactly four fields");
  std::array<uint8_t, 16> src{};
  std::array<uint8_t, 16> dst{};
  if (!ip_of(family, fields[1], src.data()) || !ip_of(family, fields[2], dst.data())) {
    return invalid("PROXY v1 address not of the family it names");
  }
  const auto sport = port_of(fields[3]);
  const auto dport = port_of(fields[4]);
  if (!sport || !dport) return invalid("PROXY v1 port not a number from 0 to 65535");
  h.source = address_from(family, src.data(), *sport);
  h.destination = address_from(family, dst.data(), *dport);
  return h;
}

ProxyHeader parse_v2(std::string_view bytes) {
  if (!kV2Signature.starts_with(bytes.substr(0, kV2Signature.size()))) {
    return invalid("not a PROXY protocol header");
  }
  if (bytes.size() < 16) return {};
  const auto* b = reinterpret_cast<const uint8_t*>(bytes.data());
  if ((b[12] >> 4) != 2) return invalid("PROXY v2 header of another version");
  const int command = b[12] & 0x0f;
  if (command > 1) return invalid("PROXY v2 command neither LOCAL nor PROXY");
  const int family = b[13] >> 4;
  const int transport = b[13] & 0x0f;
  // Checked even for LOCAL, whose receivers must ignore the family: no sender writes another.
  if (family > 3 || transport > 2) return invalid("PROXY v2 unknown address family");
  const size_t length = (size_t{b[14]} << 8) | b[15];
  if (length > kMaxProxyV2Body) return invalid("PROXY v2 header longer than 2 KiB");
  if (bytes.size() < 16 + length) return {};
  ProxyHeader h{.status = ProxyHeader::Status::kDone, .length = 16 + length};
  if (command == 0) return h;                // LOCAL: the connection's own addresses stand
  if (family == 0 || family == 3) return h;  // UNSPEC, UNIX: no address of ours to learn
  // Addresses of a UDP flow, or of an unspecified transport, are not this TCP connection's: the
  // connection's own stand, as HAProxy does for every family but TCP over IPv4 and IPv6.
  if (transport != 1) return h;
  const size_t size = family == 1 ? 4 : 16;
  if (length < 2 * size + 4) return invalid("PROXY v2 header shorter than its addresses");
  const uint8_t* a = b + 16;
  const int af = family == 1 ? AF_INET : AF_INET6;
  // What follows the addresses (TLVs) is skipped: length says where the client's bytes begin.
  h.source = address_from(af, a, static_cast<uint16_t>((a[2 * size] << 8) | a[2 * size + 1]));
  h.destination =
      address_from(af, a + size, static_cast<uint16_t>((a[2 * size + 2] << 8) | a[2 * size + 3]));
  return h;
}

}  // namespace

size_t encode_proxy_header(ProxyVersion version, const SocketAddress* source,
                           const SocketAddress* destination,
                           std::span<char, kMaxProxyHeaderOut> out) {
  Endpoint src;
  Endpoint dst;
  bool known = source != nullptr && destination != nullptr;
  if (known) {
    src = endpoint_of(*source);
    dst = endpoint_of(*destination);
    known = src.family != AF_UNSPEC && dst.family != AF_UNSPEC;
    if (known && src.family != dst.family) {
      map_to_v6(src);
      map_to_v6(dst);
    }
  }
  const Endpoint* s = known ? &src : nullptr;
  const Endpoint* d = known ? &dst : nullptr;
  return version == ProxyVersion::kV1 ? encode_v1(s, d, out) : encode_v2(s, d, out);
}

ProxyHeader parse_proxy_header(std::string_view bytes) {
  if (bytes.empty()) return {};
  if (bytes[0] == 'P') return parse_v1(bytes);
  if (bytes[0] == '\r') return parse_v2(bytes);
  return invalid("not a PROXY protocol header");
}

}  // namespace vigil::net
