// SocketAddress: an IPv4 or IPv6 address and port as the kernel wants it. A value type, any thread.
// Name resolution (resolve) blocks and belongs on the control thread only.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace vigil::net {

class SocketAddress {
 public:
  SocketAddress() = default;

  // An IP literal ("10.0.0.1", "::1", "fe80::1%eth0") and a port; no name lookup.
  static Result<SocketAddress> from_ip(std::string_view ip, uint16_t port);
  static SocketAddress from_sockaddr(const sockaddr* sa, socklen_t len);
  // From ip_bytes()'s form: 4 bytes IPv4, 16 IPv6; anything else gives an empty address.
  static SocketAddress from_ip_bytes(std::string_view bytes, uint16_t port);

  const sockaddr* sockaddr_ptr() const { return reinterpret_cast<const sockaddr*>(&storage_); }
  socklen_t size() const { return size_; }
  int family() const { return storage_.sa.sa_family; }
  uint16_t port() const;
  void set_port(uint16_t port);
  bool is_loopback() const;
  bool is_unspecified() const;  // 0.0.0.0 or ::

  // "10.0.0.1:6443" or "[::1]:6443".
  std::string to_string() const;
  // The address alone, "10.0.0.1" or "::1".
  std::string ip_string() const;
  // Bytes of the address alone (no port), for hashing a client's source address.
  std::string_view ip_bytes() const;

  friend bool operator==(const SocketAddress& a, const SocketAddress& b);

 private:
  // An IPv4 or IPv6 address only: 28 bytes, where sockaddr_storage takes 128 (every member and
  // every session holds addresses).
  union Storage {
    sockaddr sa;
    sockaddr_in in4;
    sockaddr_in6 in6;
  };
  Storage storage_{};
  socklen_t size_ = 0;
};

// The IPv4 address inside an IPv4-mapped IPv6 one (::ffff:a.b.c.d, as a dual-stack socket sees an
// IPv4 peer), as 4 bytes; any other address as it is. Bytes as SocketAddress::ip_bytes().
std::string_view unmapped(std::string_view ip);

// Splits "host:port", "[v6]:port" or ":port" (host empty). Port must be 0-65535.
struct HostPort {
  std::string host;
  uint16_t port = 0;
};
Result<HostPort> split_host_port(std::string_view text);

// True when `host` is an IPv4 or IPv6 literal rather than a name.
bool is_ip_literal(std::string_view host);

// "fd00::1" for "[fd00::1]": an address written as in a URL, where the socket calls and the Host
// header's own brackets want it bare. Any other text (also "[]") comes back as it is.
constexpr std::string_view unbracketed(std::string_view host) {
  const bool bracketed = host.size() > 2 && host.front() == '[' && host.back() == ']';
  return bracketed ? host.substr(1, host.size() - 2) : host;
}

// Resolves a name or literal to every address it has (getaddrinfo; blocks).
Result<std::vector<SocketAddress>> resolve(const std::string& host, uint16_t port);

}  // namespace vigil::net
