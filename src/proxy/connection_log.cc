#include "proxy/connection_log.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <sys/socket.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "proxy/session.h"

namespace vigil::proxy {

std::string_view to_string(SessionEnd e) {
  switch (e) {
    case SessionEnd::kClientClose:
      return "client_close";
    case SessionEnd::kMemberClose:
      return "member_close";
    case SessionEnd::kClientReset:
      return "client_reset";
    case SessionEnd::kMemberReset:
      return "member_reset";
    case SessionEnd::kIdleTimeout:
      return "idle_timeout";
    case SessionEnd::kMemberDown:
      return "member_down";
    case SessionEnd::kNoMember:
      return "no_member";
    case SessionEnd::kStopped:
      return "stopped";
    case SessionEnd::kKilled:
      return "killed";
    case SessionEnd::kAddressLost:
      return "address_lost";
  }
  return "?";
}

std::string_view ConnectionRecord::listener_name() const {
  return {listener.data(), strnlen(listener.data(), listener.size())};
}

std::string ConnectionRecord::client() const {
  char text[INET6_ADDRSTRLEN] = "?";
  const int family = client_ip_size == 16 ? AF_INET6 : AF_INET;
  if (client_ip_size == 4 || client_ip_size == 16) {
    ::inet_ntop(family, client_ip.data(), text, sizeof text);
  }
  return family == AF_INET6 ? fmt::format("[{}]:{}", text, client_port)
                            : fmt::format("{}:{}", text, client_port);
}

ConnectionRing::ConnectionRing(size_t capacity) {
  const size_t size = std::bit_ceil(std::max<size_t>(capacity, 2));
  slots_ = std::make_unique<ConnectionRecord[]>(size);
  mask_ = size - 1;
}

bool ConnectionRing::push(const ConnectionRecord& r) {
  const uint64_t head = head_.load(std::memory_order_relaxed);
  if (head - tail_seen_ > mask_) {
    tail_seen_ = tail_.load(std::memory_order_acquire);
    if (head - tail_seen_ > mask_) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
  }
  slots_[head & mask_] = r;
  head_.store(head + 1, std::memory_order_release);
  return true;
}

ConnectionRecord Session::record(TimePoint now) const {
  ConnectionRecord r{.accepted = accepted_at_,
                     .connected = connected_us_ == 0
                                      ? TimePoint{}
                                      : accepted_at_ + std::chrono::microseconds(connected_us_ - 1),
                     .ended = now,
                     .bytes_in = bytes_up_,
                     .bytes_out = bytes_down_,
                     .member_serial = backend_stats_ ? backend_stats_->serial : 0,
                     .client_ip = client_ip_,
                     .client_ip_size = client_ip_size_,
                     .client_port = client_port_,
                     .end = end_,
                     .retries = retries_,
                     .replayed = replayed_};
  const size_t n = std::min(listener_.name.size(), r.listener.size() - 1);
  std::copy_n(listener_.name.data(), n, r.listener.data());
  return r;
}

}  // namespace vigil::proxy
