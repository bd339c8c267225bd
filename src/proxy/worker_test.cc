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
#include "proxy/test_support.h"

namespace vigil::proxy {
namespace {

using namespace std::chrono_literals;
using namespace test_support;

TEST(Worker, EchoesOneMebibyteByteExactOnManyConnections) {
  Member a, b;
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
  // Every byte counted once each way, on the listener and on the member that carried it.
  const uint64_t sent = 16u << 20;
  const auto& c = proxy.pool().candidates;
  EXPECT_TRUE(eventually([&] {
    return proxy.stats().bytes_in.load() == sent && proxy.stats().bytes_out.load() == sent &&
           c[0].stats->bytes_out.load() + c[1].stats->bytes_out.load() == sent &&
           c[0].stats->bytes_in.load() + c[1].stats->bytes_in.load() == sent;
  })) << proxy.stats().bytes_in.load()
      << " in, " << proxy.stats().bytes_out.load() << " out";
  EXPECT_EQ(proxy.stats().retried.load(), 0u);
}

TEST(Worker, HalfClosedClientStillGetsTheWholeAnswer) {
  Member backend(Member::kAnswerAtEof);
  Proxy proxy({backend.address()});
  EXPECT_EQ(echo_through(proxy.address(), std::string(300000, 'x')), "got 300000 bytes");
}

TEST(Worker, RetriesOnAnotherMemberWhenOneRefuses) {
  net::SocketAddress refused;
  {
    auto l = net::listen_tcp(loopback(), {.reuse_port = false});
    refused = *net::local_address(l->get());
  }
  Member good;
  Proxy proxy({refused, good.address()});
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(echo_through(proxy.address(), "hello"), "hello") << i;
  }
  auto failures = proxy.failures();
  ASSERT_FALSE(failures.empty());
  EXPECT_EQ(failures[0].member_id, "m0");
  EXPECT_NE(failures[0].reason.find("refused"), std::string::npos) << failures[0].reason;
  EXPECT_EQ(proxy.stats().retried.load(), failures.size()) << "one retry per refusal";
  EXPECT_EQ(proxy.stats().connect_failures.load(), failures.size());
  EXPECT_EQ(proxy.stats().no_backend.load(), 0u);
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
  Member good;
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
  Member good;
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
  EXPECT_GE(proxy.stats().hedged.load(), 1u);
  EXPECT_EQ(proxy.stats().retried.load(), 0u) << "a hedge is not a retry";
}

TEST(Worker, CloseMemberSessionsEndsThemAndCounts) {
  Member a;
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

TEST(Worker, AnUpdateAddsAndRemovesListenersWhileSessionsLiveOn) {
  Member a;
  Proxy proxy({a.address()});
  net::Fd held = connect_blocking(proxy.address());
  ASSERT_EQ(::send(held.get(), "a", 1, 0), 1);
  char c;
  ASSERT_EQ(::recv(held.get(), &c, 1, 0), 1);

  // Replace listener "l" by a new one, "l2", on another port.
  NewListener l2 = new_listener("l2");
  const auto second = l2.address;
  ListenerChanges changes{.removed = {"l"}};
  changes.set.push_back(std::move(l2.socket));
  proxy.worker().update({std::make_shared<PoolSnapshot>(proxy.pool())}, std::move(changes));

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

TEST(Worker, UpdateChangesOnlyTheListenersItNames) {
  Member a;
  Proxy proxy({a.address()});
  const auto first = proxy.address();
  const auto pools = [&] {
    return std::vector<PoolSnapshotPtr>{std::make_shared<PoolSnapshot>(proxy.pool())};
  };
  NewListener l2 = new_listener("l2");
  const auto second = l2.address;
  ListenerChanges add;
  add.set.push_back(std::move(l2.socket));
  proxy.worker().update(pools(), std::move(add));
  EXPECT_EQ(echo_through(second, "new"), "new");
  EXPECT_EQ(echo_through(first, "unnamed, so kept"), "unnamed, so kept");

  // New settings without a socket: the listener keeps its port and takes them.
  ListenerChanges limit;
  limit.set.push_back({.listener_id = "l2",
                       .listener_name = "l2",
                       .pool_index = 0,
                       .max_connections = 1,
                       .stats = std::make_shared<ListenerStats>()});
  limit.removed.push_back("l");
  proxy.worker().update(pools(), std::move(limit));
  net::Fd held = connect_blocking(second);
  ASSERT_EQ(::send(held.get(), "a", 1, 0), 1);
  char c;
  ASSERT_EQ(::recv(held.get(), &c, 1, 0), 1);
  net::Fd extra = connect_blocking(second);
  EXPECT_TRUE(closed_by_peer(extra.get())) << "max_connections 1 was taken";
  net::Fd refused(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  EXPECT_NE(::connect(refused.get(), first.sockaddr_ptr(), first.size()), 0) << "l was removed";
}

TEST(Worker, NoMemberMeansTheClientIsClosedNotLeftHanging) {
  Proxy proxy({});
  net::Fd fd = connect_blocking(proxy.address());
  EXPECT_TRUE(closed_by_peer(fd.get()));
  EXPECT_EQ(proxy.stats().no_backend.load(), 1u);
}

TEST(Worker, MaxConnectionsRefusesTheExtraConnection) {
  Member backend;
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
  Member backend;
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
  Member backend;
  // With the first-byte watch, whose suspect time wakes the session up 100 ms after its first
  // flight.
  Proxy proxy({backend.address()}, PoolSnapshot{.first_byte_timeout = 1s});
  const auto connected = std::chrono::steady_clock::now();
  net::Fd fd = connect_blocking(proxy.address());
  ASSERT_EQ(::send(fd.get(), "a", 1, 0), 1);
  char c;
  ASSERT_EQ(::recv(fd.get(), &c, 1, 0), 1);
  const int leg = leg_to(backend.address());
  ASSERT_GE(leg, 0);
  // Not at once (unless this thread stalled for most of the second), nor at an earlier wake-up
  // of the session (the first-byte watch's, 100 ms after its first flight) ...
  if (std::chrono::steady_clock::now() - connected < 500ms) {
    EXPECT_FALSE(keepalive_on(leg));
  }
  while (std::chrono::steady_clock::now() - connected < 300ms) {
    pollfd p{.fd = fd.get(), .events = POLLIN, .revents = 0};
    ::poll(&p, 1, 20);  // the session stays quiet meanwhile
  }
  if (std::chrono::steady_clock::now() - connected < 900ms) {
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
  Member a, b;
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

// A publish carries the pools that changed, by index: the others stay as the worker has them.
TEST(Worker, APublishOfSomePoolsLeavesTheOthers) {
  Member a, b;
  Proxy proxy({a.address()});
  auto elsewhere = std::make_shared<PoolSnapshot>(proxy.pool());
  elsewhere->candidates[0].address = b.address();
  elsewhere->version = 2;
  // Pool 1 (no listener uses it) is set; pool 0, the listener's, is not named and stays.
  proxy.worker().publish(PoolSlots{.size = 2, .set = {{1, elsewhere}}});
  std::promise<void> handled;
  proxy.worker().ping([&] { handled.set_value(); });
  ASSERT_EQ(handled.get_future().wait_for(5s), std::future_status::ready);
  EXPECT_EQ(echo_through(proxy.address(), "1"), "1");
  EXPECT_EQ(a.accepted(), 1);
  EXPECT_EQ(b.accepted(), 0);
  // Now pool 0 is named: new connections go to b.
  proxy.worker().publish(PoolSlots{.size = 2, .set = {{0, elsewhere}}});
  for (int i = 0; i < 200 && b.accepted() == 0; ++i) {
    EXPECT_EQ(echo_through(proxy.address(), "2"), "2");
  }
  EXPECT_GE(b.accepted(), 1);
}

}  // namespace
}  // namespace vigil::proxy
