#include "net/cidr.h"

#include <arpa/inet.h>

#include <charconv>
#include <cstring>

namespace vigil::net {
Result<Cidr> Cidr::parse(std::string_view text) {
  const size_t slash = text.find('/');
  const std::string ip(text.substr(0, slash));
  Cidr out;
  if (inet_pton(AF_INET, ip.c_str(), out.bytes_.data()) == 1) {
    out.prefix_ = 32;
  } else if (inet_pton(AF_INET6, ip.c_str(), out.bytes_.data()) == 1) {
    out.v6_ = true;
    out.prefix_ = 128;
  } else {
    return fail("\"" + std::string(text) +
                "\" is not a network; use an address, or address/length (10.0.0.0/8, fd00::/8)");
  }
  if (slash != std::string_view::npos) {
    const std::string_view len = text.substr(slash + 1);
    unsigned value = 0;
    auto [end, ec] = std::from_chars(len.data(), len.data() + len.size(), value);
    if (len.empty() || ec != std::errc() || end != len.data() + len.size() || value > out.prefix_) {
      return fail("\"" + std::string(text) + "\": the prefix length must be 0.." +
                  std::to_string(out.prefix_));
    }
    out.prefix_ = static_cast<uint8_t>(value);
  }
  for (size_t bit = out.prefix_; bit < out.bytes_.size() * 8; ++bit) {
    out.bytes_[bit / 8] &= static_cast<uint8_t>(~(0x80u >> (bit % 8)));
  }
  return out;
}

bool Cidr::contains(const SocketAddress& address) const {
  std::string_view ip = address.ip_bytes();
  if (!v6_) ip = unmapped(ip);
  if (ip.size() != (v6_ ? 16u : 4u)) return false;
  const auto* b = reinterpret_cast<const uint8_t*>(ip.data());
  const size_t whole = prefix_ / 8;
  if (std::memcmp(b, bytes_.data(), whole) != 0) return false;
  const unsigned rest = prefix_ % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<uint8_t>(0xff00u >> rest);
  return (b[whole] & mask) == bytes_[whole];
}

std::string Cidr::to_string() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(v6_ ? AF_INET6 : AF_INET, bytes_.data(), buf, sizeof buf);
  return std::string(buf) + "/" + std::to_string(prefix_);
}

}  // namespace vigil::net
