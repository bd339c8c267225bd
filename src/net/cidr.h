// Cidr: an IPv4 or IPv6 network ("10.0.0.0/8", "::1/128", or an address alone), for the sources
// a listener trusts with a PROXY header. A value type, any thread; contains() allocates nothing.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/error.h"
#include "net/address.h"

namespace vigil::net {

class Cidr {
 public:
  // "a.b.c.d/n" (n 0..32), "v6/n" (n 0..128), or an address alone (the one host).
  static Result<Cidr> parse(std::string_view text);

  // IPv4 networks contain the IPv4-mapped IPv6 addresses of their hosts too: a dual-stack
  // listener sees its IPv4 clients as ::ffff:a.b.c.d.
  bool contains(const SocketAddress& address) const;
  std::string to_string() const;
  bool v6() const { return v6_; }
  int prefix() const { return prefix_; }
  // The network's address, host bits cleared: 4 bytes for IPv4 (the rest zero), 16 for IPv6.
  const std::array<uint8_t, 16>& network() const { return bytes_; }

  bool operator==(const Cidr&) const = default;

 private:
  bool v6_ = false;
  uint8_t prefix_ = 0;
  std::array<uint8_t, 16> bytes_{};  // the network, host bits cleared
};

}  // namespace vigil::net
