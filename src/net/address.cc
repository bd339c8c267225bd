#include "net/address.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netdb.h>

#include <algorithm>
#include <charconv>
#include <cstring>

namespace vigil::net {

Result<SocketAddress> SocketAddress::from_ip(std::string_view ip, uint16_t port) {
  SocketAddress out;
  std::string text(ip);
  auto* v4 = reinterpret_cast<sockaddr_in*>(&out.storage_);
  if (inet_pton(AF_INET, text.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    out.size_ = sizeof(sockaddr_in);
    return out;
  }
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&out.storage_);
  std::string scope;
  if (auto pct = text.find('%'); pct != std::string::npos) {
    scope = text.substr(pct + 1);
    text.resize(pct);
  }
  if (inet_pton(AF_INET6, text.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    if (!scope.empty()) {
      v6->sin6_scope_id = if_nametoindex(scope.c_str());
      if (v6->sin6_scope_id == 0)
        return fail("unknown interface \"" + scope + "\" in " + std::string(ip));
    }
    out.size_ = sizeof(sockaddr_in6);
    return out;
  }
  return fail("\"" + std::string(ip) + "\" is not an IP address");
}

SocketAddress SocketAddress::from_sockaddr(const sockaddr* sa, socklen_t len) {
  SocketAddress out;
  len = std::min<socklen_t>(len, sizeof(out.storage_));
  std::memcpy(&out.storage_, sa, len);
  out.size_ = len;
  return out;
}

SocketAddress SocketAddress::from_ip_bytes(std::string_view bytes, uint16_t port) {
  SocketAddress out;
  if (bytes.size() == sizeof(in_addr)) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&out.storage_);
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    std::memcpy(&v4->sin_addr, bytes.data(), bytes.size());
    out.size_ = sizeof(sockaddr_in);
  } else if (bytes.size() == sizeof(in6_addr)) {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&out.storage_);
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    std::memcpy(&v6->sin6_addr, bytes.data(), bytes.size());
    out.size_ = sizeof(sockaddr_in6);
  }
  return out;
}

uint16_t SocketAddress::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&storage_)->sin_port);
  if (family() == AF_INET6)
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_port);
  return 0;
}

void SocketAddress::set_port(uint16_t port) {
  if (family() == AF_INET) reinterpret_cast<sockaddr_in*>(&storage_)->sin_port = htons(port);
  if (family() == AF_INET6) reinterpret_cast<sockaddr_in6*>(&storage_)->sin6_port = htons(port);
}

bool SocketAddress::is_loopback() const {
  if (family() == AF_INET) {
    return (ntohl(reinterpret_cast<const sockaddr_in*>(&storage_)->sin_addr.s_addr) >> 24) == 127;
  }
  if (family() == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&a)) return true;
    // ::ffff:127.x.y.z
    return IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127;
  }
  return false;
}

bool SocketAddress::is_unspecified() const {
  if (family() == AF_INET) {
    return reinterpret_cast<const sockaddr_in*>(&storage_)->sin_addr.s_addr == INADDR_ANY;
  }
  if (family() == AF_INET6) {
    return IN6_IS_ADDR_UNSPECIFIED(&reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_addr);
  }
  return false;
}

std::string SocketAddress::ip_string() const {
  char buf[INET6_ADDRSTRLEN] = "?";
  if (family() == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&storage_)->sin_addr, buf, sizeof buf);
  } else if (family() == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_addr, buf,
              sizeof buf);
  }
  return buf;
}

std::string SocketAddress::to_string() const {
  if (family() == AF_INET6) return "[" + ip_string() + "]:" + std::to_string(port());
  return ip_string() + ":" + std::to_string(port());
}

std::string_view SocketAddress::ip_bytes() const {
  if (family() == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in*>(&storage_)->sin_addr;
    return {reinterpret_cast<const char*>(&a), sizeof a};
  }
  if (family() == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_addr;
    return {reinterpret_cast<const char*>(&a), sizeof a};
  }
  return {};
}

bool operator==(const SocketAddress& a, const SocketAddress& b) {
  return a.size_ == b.size_ && std::memcmp(&a.storage_, &b.storage_, a.size_) == 0;
}

Result<HostPort> split_host_port(std::string_view text) {
  HostPort out;
  std::string_view port_text;
  if (text.starts_with('[')) {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return fail("\"" + std::string(text) + "\": expected [IPv6]:port");
    }
    out.host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) {
      return fail("\"" + std::string(text) +
                  "\": expected address:port, like 127.0.0.1:8404 or :6443");
    }
    out.host = std::string(text.substr(0, colon));
    if (out.host.find(':') != std::string::npos) {
      return fail("\"" + std::string(text) +
                  "\": put an IPv6 address in brackets, like [::1]:6443");
    }
    port_text = text.substr(colon + 1);
  }
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      value > 65535) {
    return fail("\"" + std::string(text) + "\": port must be a number from 0 to 65535");
  }
  out.port = static_cast<uint16_t>(value);
  return out;
}

bool is_ip_literal(std::string_view host) { return SocketAddress::from_ip(host, 0).has_value(); }

Result<std::vector<SocketAddress>> resolve(const std::string& host, uint16_t port) {
  if (auto literal = SocketAddress::from_ip(host, port)) return std::vector{*literal};
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &list);
  if (rc != 0) return fail("cannot resolve \"" + host + "\": " + gai_strerror(rc));
  std::vector<SocketAddress> out;
  for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    SocketAddress a = SocketAddress::from_sockaddr(ai->ai_addr, ai->ai_addrlen);
    a.set_port(port);
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  }
  freeaddrinfo(list);
  if (out.empty()) return fail("cannot resolve \"" + host + "\": no address");
  return out;
}

std::string_view unmapped(std::string_view ip) {
  static constexpr char kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '\xff', '\xff'};
  if (ip.size() == 16 && ip.starts_with(std::string_view(kPrefix, sizeof kPrefix))) {
    ip.remove_prefix(sizeof kPrefix);
  }
  return ip;
}

}  // namespace vigil::net
