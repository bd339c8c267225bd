// Worker tests on real loopback sockets, ports chosen by the kernel. Every wait is bounded by a
// socket timeout or poll() limit.
#include "proxy/worker.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <filesystem>
#include <future>
#include <mutex>
#include <random>
#include <thread>

#include "net/socket.h"

namespace vigil::proxy {
namespace {

using namespace std::chrono_literals;

net::SocketAddress loopback(uint16_t port = 0) {
  return *net::SocketAddress::from_ip("127.0.0.1", port);
}

void set_timeouts(int fd, std::chrono::milliseconds t = 5000ms) {
  timeval tv{.tv_sec = t.count() / 1000, .tv_usec = (t.count() % 1000) * 1000};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

// A blocking backend: echoes, or (half_close_reply) reads to EOF and then answers with the count.
class Backend {
 public:
  explicit Backend(bool half_close_reply = false) : half_close_reply_(half_close_reply) {
    fd_ = std::move(*net::listen_tcp(loopback(), {.reuse_port = false}));
    address_ = *net::local_address(fd_.get());
    thread_ = std::thread([this] { serve(); });
  }
  ~Backend() {
    ::shutdown(fd_.get(), SHUT_RDWR);
    thread_.join();
    std::lock_guard lock(mutex_);
    for (auto& t : handlers_) t.join();
  }
  net::SocketAddress address() const { return address_; }
  int accepted() const { return accepted_.load(); }

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
    char buf[65536];
    uint64_t total = 0;
    for (;;) {
      const ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      total += static_cast<uint64_t>(n);
      if (!half_close_reply_ && ::send(c, buf, static_cast<size_t>(n), MSG_NOSIGNAL) != n) break;
    }
    if (half_close_reply_) {
      const std::string reply = "got " + std::to_string(total) + " bytes";
      ::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
    }
    ::close(c);
  }

  bool half_close_reply_;
  net::Fd fd_;
  net::SocketAddress address_;
  std::thread thread_;
  std::mutex mutex_;
  std::vector<std::thread> handlers_;
  std::atomic<int> accepted_{0};
};

struct Failures {
  std::mutex mutex;
  std::vector<ConnectFailure> seen;
};

// One worker serving one listener in front of the given members.
class Proxy {
 public:
  Proxy(std::vector<net::SocketAddress> members, Duration connect_timeout = 1s,
        int max_connections = 1000, Duration idle_timeout = 1h, Duration hedge_after = 0s) {
    auto pool = std::make_shared<PoolSnapshot>();
    pool->name = "p";
    pool->connect_timeout = connect_timeout;
    pool->hedge_after = hedge_after;
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
                         .stats = stats_});
    worker_ =
        std::make_unique<Worker>(0, std::move(listeners), std::vector<PoolSnapshotPtr>{pool_},
                                 WorkerCallbacks{.on_connect_failure = [this](ConnectFailure f) {
                                   std::lock_guard lock(failures_.mutex);
                                   failures_.seen.push_back(std::move(f));
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
  void publish(PoolSnapshotPtr p) { worker_->publish({std::move(p)}); }
  Worker& worker() { return *worker_; }

 private:
  PoolSnapshotPtr pool_;
  net::SocketAddress address_;
  std::shared_ptr<ListenerStats> stats_;
  Failures failures_;
  std::unique_ptr<Worker> worker_;
};

net::Fd connect_blocking(const net::SocketAddress& to) {
  net::Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  set_timeouts(fd.get());
  EXPECT_EQ(::connect(fd.get(), to.sockaddr_ptr(), to.size()), 0);
  return fd;
}

std::string random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

// Sends everything while reading the echo back (both at once, or large payloads deadlock).
std::string echo_through(const net::SocketAddress& to, const std::string& payload) {
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
bool closed_by_peer(int fd, std::chrono::milliseconds bound = 5000ms) {
  pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
  if (::poll(&p, 1, static_cast<int>(bound.count())) != 1) return false;
  char c;
  return ::recv(fd, &c, 1, MSG_DONTWAIT) <= 0;
}

TEST(Worker, EchoesOneMebibyteByteExactOnManyConnections) {
  Backend a, b;
  Proxy proxy({a.address(), b.address()});
  std::vector<std::thread> clients;
  std::atomic<int> good{0};
  for (uint32_t i = 0; i < 16; ++i) {
    clients.emplace_back([&, i] {
      const std::string payload = random_bytes(1 << 20, i);
      if (echo_through(proxy.address(), payload) == payload) ++good;
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(good.load(), 16);
  EXPECT_EQ(a.accepted() + b.accepted(), 16);
  EXPECT_EQ(a.accepted(), 8) << "round robin shares evenly";
}

TEST(Worker, HalfClosedClientStillGetsTheWholeAnswer) {
  Backend backend(/*half_close_reply=*/true);
  Proxy proxy({backend.address()});
  EXPECT_EQ(echo_through(proxy.address(), std::string(300000, 'x')), "got 300000 bytes");
}

TEST(Worker, RetriesOnAnotherMemberWhenOneRefuses) {
  net::SocketAddress refused;
  {
    auto l = net::listen_tcp(loopback(), {.reuse_port = false});
    refused = *net::local_address(l->get());
  }
  Backend good;
  Proxy proxy({refused, good.address()});
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(echo_through(proxy.address(), "hello"), "hello") << i;
  }
  auto failures = proxy.failures();
  ASSERT_FALSE(failures.empty());
  EXPECT_EQ(failures[0].member_id, "m0");
  EXPECT_NE(failures[0].reason.find("refused"), std::string::npos) << failures[0].reason;
}

TEST(Worker, ConnectTimeoutMovesToTheNextMember) {
  // A listener with a full accept queue drops further SYNs: a connect to it hangs, like one to a
  // powered-off host.
  auto blackhole = net::listen_tcp(loopback(), {.reuse_port = false, .backlog = 0});
  const auto hole = *net::local_address(blackhole->get());
  std::vector<net::Fd> fillers;
  for (int i = 0; i < 4; ++i) {
    auto c = net::connect_nonblocking(hole);
    fillers.push_back(std::move(c->fd));
  }
  Backend good;
  Proxy proxy({hole, good.address()}, /*connect_timeout=*/100ms);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(echo_through(proxy.address(), "ping"), "ping") << i;
  }
  bool saw_timeout = false;
  for (const auto& f : proxy.failures()) saw_timeout |= f.reason == "connect timeout";
  EXPECT_TRUE(saw_timeout);
}

// A listener whose accept queue is full: SYNs to it are dropped, like to a powered-off host.
struct Blackhole {
  Blackhole() {
    fd = std::move(*net::listen_tcp(loopback(), {.reuse_port = false, .backlog = 0}));
    address = *net::local_address(fd.get());
    for (int i = 0; i < 4; ++i) fillers.push_back(std::move(net::connect_nonblocking(address)->fd));
  }
  net::Fd fd;
  net::SocketAddress address;
  std::vector<net::Fd> fillers;
};

TEST(Worker, HedgedConnectWinsLongBeforeTheConnectTimeout) {
  Blackhole hole;
  Backend good;
  // The connect timeout (30 s) is far beyond the client's 5 s socket timeout: only the hedge
  // can make these succeed.
  Proxy proxy({hole.address, good.address()}, /*connect_timeout=*/30s, 1000, 1h,
              /*hedge_after=*/50ms);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(echo_through(proxy.address(), "ping"), "ping") << i;
  }
  bool reported = false;
  for (const auto& f : proxy.failures()) {
    reported |=
        f.member_id == "m0" && f.silent && f.reason.find("hedge_after") != std::string::npos;
  }
  EXPECT_TRUE(reported) << "the silent member is reported as a passive failure";
}

TEST(Worker, CloseMemberSessionsEndsThemAndCounts) {
  Backend a;
  Proxy proxy({a.address()});
  net::Fd fd = connect_blocking(proxy.address());
  ASSERT_EQ(::send(fd.get(), "a", 1, 0), 1);
  char c;
  ASSERT_EQ(::recv(fd.get(), &c, 1, 0), 1);
  std::promise<size_t> closed;
  proxy.worker().close_member_sessions(proxy.pool().candidates[0].stats,
                                       [&](size_t n) { closed.set_value(n); });
  auto count = closed.get_future();
  ASSERT_EQ(count.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(count.get(), 1u);
  EXPECT_TRUE(closed_by_peer(fd.get()));
}

TEST(Worker, ReconfigureAddsAndRemovesListenersWhileSessionsLiveOn) {
  Backend a;
  Proxy proxy({a.address()});
  net::Fd held = connect_blocking(proxy.address());
  ASSERT_EQ(::send(held.get(), "a", 1, 0), 1);
  char c;
  ASSERT_EQ(::recv(held.get(), &c, 1, 0), 1);

  // Replace listener "l" by a new one, "l2", on another port.
  auto fd = net::listen_tcp(loopback());
  const auto second = *net::local_address(fd->get());
  std::vector<ListenSocket> listeners;
  listeners.push_back({.listener_id = "l2",
                       .listener_name = "l2",
                       .fd = std::move(*fd),
                       .pool_index = 0,
                       .stats = std::make_shared<ListenerStats>()});
  proxy.worker().reconfigure({std::make_shared<PoolSnapshot>(proxy.pool())}, std::move(listeners));

  EXPECT_EQ(echo_through(second, "via the new listener"), "via the new listener");
  // The old listener no longer accepts (its socket is closed: refused)...
  net::Fd refused(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const auto old = proxy.address();
  EXPECT_NE(::connect(refused.get(), old.sockaddr_ptr(), old.size()), 0);
  // ...and the session it accepted still works.
  ASSERT_EQ(::send(held.get(), "b", 1, 0), 1);
  ASSERT_EQ(::recv(held.get(), &c, 1, 0), 1);
  EXPECT_EQ(c, 'b');
}

TEST(Worker, NoMemberMeansTheClientIsClosedNotLeftHanging) {
  Proxy proxy({});
  net::Fd fd = connect_blocking(proxy.address());
  EXPECT_TRUE(closed_by_peer(fd.get()));
  EXPECT_EQ(proxy.stats().no_backend.load(), 1u);
}

TEST(Worker, MaxConnectionsRefusesTheExtraConnection) {
  Backend backend;
  Proxy proxy({backend.address()}, 1s, /*max_connections=*/1);
  net::Fd first = connect_blocking(proxy.address());
  ASSERT_EQ(::send(first.get(), "a", 1, 0), 1);
  char c;
  ASSERT_EQ(::recv(first.get(), &c, 1, 0), 1);  // the first is proxied
  net::Fd second = connect_blocking(proxy.address());
  EXPECT_TRUE(closed_by_peer(second.get()));
  EXPECT_EQ(proxy.stats().rejected.load(), 1u);
}

TEST(Worker, IdleTimeoutClosesAQuietSession) {
  Backend backend;
  Proxy proxy({backend.address()}, 1s, 1000, /*idle_timeout=*/200ms);
  net::Fd fd = connect_blocking(proxy.address());
  ASSERT_EQ(::send(fd.get(), "a", 1, 0), 1);
  char c;
  ASSERT_EQ(::recv(fd.get(), &c, 1, 0), 1);
  EXPECT_TRUE(closed_by_peer(fd.get(), 3000ms));
}

// vigil's own socket toward `backend` (the worker runs in this process): -1 when none.
int leg_to(const net::SocketAddress& backend) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    const int fd = std::stoi(entry.path().filename().string());
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) continue;
    if (net::SocketAddress::from_sockaddr(reinterpret_cast<sockaddr*>(&ss), len).to_string() ==
        backend.to_string()) {
      return fd;
    }
  }
  return -1;
}

bool keepalive_on(int fd) {
  int on = 0;
  socklen_t len = sizeof on;
  return ::getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, &len) == 0 && on == 1;
}

TEST(Worker, TheBackendLegGetsItsDeadPeerOptionsOnceTheSessionIsASecondOld) {
  Backend backend;
  Proxy proxy({backend.address()});
  const auto connected = std::chrono::steady_clock::now();
  net::Fd fd = connect_blocking(proxy.address());
  ASSERT_EQ(::send(fd.get(), "a", 1, 0), 1);
  char c;
  ASSERT_EQ(::recv(fd.get(), &c, 1, 0), 1);
  const int leg = leg_to(backend.address());
  ASSERT_GE(leg, 0);
  // Not at once (unless this thread stalled for most of the second) ...
  if (std::chrono::steady_clock::now() - connected < 500ms) {
    EXPECT_FALSE(keepalive_on(leg));
  }
  // ... but within about a second.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!keepalive_on(leg) && std::chrono::steady_clock::now() < deadline) {
    pollfd p{.fd = fd.get(), .events = POLLIN, .revents = 0};
    ::poll(&p, 1, 20);  // a bounded wait for the worker's timer, on a socket that stays quiet
  }
  EXPECT_TRUE(keepalive_on(leg));
}

TEST(Worker, NewSnapshotRoutesNewConnectionsElsewhere) {
  Backend a, b;
  Proxy proxy({a.address()});
  EXPECT_EQ(echo_through(proxy.address(), "1"), "1");
  auto next = std::make_shared<PoolSnapshot>(proxy.pool());
  next->candidates[0].address = b.address();
  next->version = 2;
  proxy.publish(next);
  // The worker applies it from its mailbox; poll until a connection lands on b (bounded).
  for (int i = 0; i < 200 && b.accepted() == 0; ++i) {
    EXPECT_EQ(echo_through(proxy.address(), "2"), "2");
  }
  EXPECT_GE(b.accepted(), 1);
}

}  // namespace
}  // namespace vigil::proxy
