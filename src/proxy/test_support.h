// Helpers for the worker tests: one worker in front of given members, and blocking clients.
// Real loopback sockets, ports chosen by the kernel; every wait is bounded by a socket timeout or
// a poll() limit. Test code only.
#pragma once

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "net/socket.h"
#include "proxy/worker.h"

namespace vigil::proxy::test_support {

using namespace std::chrono_literals;

inline net::SocketAddress loopback(uint16_t port = 0) {
  return *net::SocketAddress::from_ip("127.0.0.1", port);
}

inline void set_timeouts(int fd, std::chrono::milliseconds t = 5000ms) {
  timeval tv{.tv_sec = t.count() / 1000, .tv_usec = (t.count() % 1000) * 1000};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

// A new listener `id` for pool 0 on a loopback port of its own, for Worker::update(); `address`
// is where it listens.
struct NewListener {
  ListenSocket socket;
  net::SocketAddress address;
};
inline NewListener new_listener(const std::string& id) {
  auto fd = net::listen_tcp(loopback());
  const net::SocketAddress address = *net::local_address(fd->get());
  return {.socket = {.listener_id = id,
                     .listener_name = id,
                     .fd = std::move(*fd),
                     .pool_index = 0,
                     .stats = std::make_shared<ListenerStats>()},
          .address = address};
}

// A blocking member: a thread accepts, one thread per connection answers as `Behaviour` says.
class Member {
 public:
  enum Behaviour {
    kEcho,              // sends back what it reads
    kAnswerAtEof,       // reads to EOF, then answers "got <n> bytes"
    kResetAfterRead,    // reads once, then resets the connection (SO_LINGER 0) without a byte
    kBannerThenSilent,  // speaks first (a banner, like SSH), then reads and never answers
    kSlowEcho,          // echoes, each answer kSlowBy late: loaded, but alive
  };
  static constexpr auto kSlowBy = 500ms;
  explicit Member(Behaviour behaviour = kEcho) : behaviour_(behaviour) {
    fd_ = std::move(*net::listen_tcp(loopback(), {.reuse_port = false}));
    address_ = *net::local_address(fd_.get());
    thread_ = std::thread([this] { serve(); });
  }
  ~Member() {
    ::shutdown(fd_.get(), SHUT_RDWR);
    thread_.join();
    std::lock_guard lock(mutex_);
    for (auto& t : handlers_) t.join();
  }
  Member(const Member&) = delete;
  Member& operator=(const Member&) = delete;
  static constexpr char kBanner[] = "SSH-2.0-member\r\n";
  net::SocketAddress address() const { return address_; }
  int accepted() const { return accepted_.load(); }
  uint64_t bytes_read() const { return bytes_read_.load(); }

 private:
  void serve() {
    for (;;) {
      pollfd p{.fd = fd_.get(), .events = POLLIN, .revents = 0};
      if (::poll(&p, 1, 10000) <= 0 || (p.revents & (POLLHUP | POLLERR | POLLNVAL))) return;
      const int c = ::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) {
        if (errno == EAGAIN || errno == EINTR) continue;
        return;
      }
      ++accepted_;
      std::lock_guard lock(mutex_);
      handlers_.emplace_back([this, c] { handle(c); });
    }
  }
  void handle(int c) {
    set_timeouts(c);
    if (behaviour_ == kBannerThenSilent) ::send(c, kBanner, sizeof kBanner - 1, MSG_NOSIGNAL);
    char buf[65536];
    uint64_t total = 0;
    for (;;) {
      const ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      total += static_cast<uint64_t>(n);
      bytes_read_ += static_cast<uint64_t>(n);
      if (behaviour_ == kResetAfterRead) {
        const linger reset{.l_onoff = 1, .l_linger = 0};
        ::setsockopt(c, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
        break;
      }
      // The member's own slowness, not a wait for a condition: what the test is about.
      if (behaviour_ == kSlowEcho) std::this_thread::sleep_for(kSlowBy);
      if ((behaviour_ == kEcho || behaviour_ == kSlowEcho) &&
          ::send(c, buf, static_cast<size_t>(n), MSG_NOSIGNAL) != n) {
        break;
      }
    }
    if (behaviour_ == kAnswerAtEof) {
      const std::string reply = "got " + std::to_string(total) + " bytes";
      ::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
    }
    ::close(c);
  }

  Behaviour behaviour_;
  net::Fd fd_;
  net::SocketAddress address_;
  std::thread thread_;
  std::mutex mutex_;
  std::vector<std::thread> handlers_;
  std::atomic<int> accepted_{0};
  std::atomic<uint64_t> bytes_read_{0};
};

struct Failures {
  std::mutex mutex;
  std::vector<ConnectFailure> seen;
  std::vector<MemberSuspect> suspects;
};

// One worker serving one listener in front of the given members.
class Proxy {
 public:
  Proxy(std::vector<net::SocketAddress> members, Duration connect_timeout = 1s,
        int max_connections = 1000, Duration idle_timeout = 1h, Duration hedge_after = 0s)
      : Proxy(std::move(members),
              PoolSnapshot{.connect_timeout = connect_timeout, .hedge_after = hedge_after},
              max_connections, idle_timeout) {}
  // `settings` gives the pool's settings; its name, members and version are set here.
  Proxy(std::vector<net::SocketAddress> members, PoolSnapshot settings, int max_connections = 1000,
        Duration idle_timeout = 1h, bool log_connections = false) {
    auto pool = std::make_shared<PoolSnapshot>(std::move(settings));
    pool->name = "p";
    pool->version = 1;
    int i = 0;
    for (const auto& m : members) {
      const std::string name = "m" + std::to_string(i++);
      pool->candidates.push_back({.member_id = name,
                                  .name = name,
                                  .address = m,
                                  .weight = 1,
                                  .stats = std::make_shared<BackendStats>()});
    }
    pool_ = pool;
    auto fd = net::listen_tcp(loopback());
    address_ = *net::local_address(fd->get());
    stats_ = std::make_shared<ListenerStats>();
    std::vector<ListenSocket> listeners;
    listeners.push_back({.listener_name = "l",
                         .fd = std::move(*fd),
                         .pool_index = 0,
                         .max_connections = max_connections,
                         .idle_timeout = idle_timeout,
                         .stats = stats_,
                         .log_connections = log_connections});
    worker_ =
        std::make_unique<Worker>(0, std::move(listeners), std::vector<PoolSnapshotPtr>{pool_},
                                 WorkerCallbacks{.on_connect_failure =
                                                     [this](ConnectFailure f) {
                                                       std::lock_guard lock(failures_.mutex);
                                                       failures_.seen.push_back(std::move(f));
                                                     },
                                                 .on_suspect =
                                                     [this](MemberSuspect m) {
                                                       std::lock_guard lock(failures_.mutex);
                                                       failures_.suspects.push_back(std::move(m));
                                                     }});
    worker_->start();
  }
  net::SocketAddress address() const { return address_; }
  const PoolSnapshot& pool() const { return *pool_; }
  ListenerStats& stats() { return *stats_; }
  std::vector<ConnectFailure> failures() {
    std::lock_guard lock(failures_.mutex);
    return failures_.seen;
  }
  std::vector<MemberSuspect> suspects() {
    std::lock_guard lock(failures_.mutex);
    return failures_.suspects;
  }
  void publish(PoolSnapshotPtr p) { worker_->publish({std::move(p)}); }
  Worker& worker() { return *worker_; }

 private:
  PoolSnapshotPtr pool_;
  net::SocketAddress address_;
  std::shared_ptr<ListenerStats> stats_;
  Failures failures_;
  std::unique_ptr<Worker> worker_;
};

// Waits up to `bound` for `done()`: a worker bumps its counters just after the bytes went out.
template <class F>
bool eventually(F done, std::chrono::milliseconds bound = 5000ms) {
  const auto until = std::chrono::steady_clock::now() + bound;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

inline net::Fd connect_blocking(const net::SocketAddress& to) {
  net::Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  set_timeouts(fd.get());
  EXPECT_EQ(::connect(fd.get(), to.sockaddr_ptr(), to.size()), 0);
  return fd;
}

inline std::string random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

// Sends everything while reading the echo back (both at once, or large payloads deadlock).
inline std::string echo_through(const net::SocketAddress& to, const std::string& payload) {
  net::Fd fd = connect_blocking(to);
  std::string got;
  std::thread writer([&] {
    size_t off = 0;
    while (off < payload.size()) {
      const ssize_t n = ::send(fd.get(), payload.data() + off, payload.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return;
      off += static_cast<size_t>(n);
    }
    ::shutdown(fd.get(), SHUT_WR);
  });
  char buf[65536];
  for (;;) {
    const ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  writer.join();
  return got;
}

// True when the peer closed the connection (read returns 0 or an error) within the bound.
inline bool closed_by_peer(int fd, std::chrono::milliseconds bound = 5000ms) {
  pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
  if (::poll(&p, 1, static_cast<int>(bound.count())) != 1) return false;
  char c;
  return ::recv(fd, &c, 1, MSG_DONTWAIT) <= 0;
}

}  // namespace vigil::proxy::test_support
