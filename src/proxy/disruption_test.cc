// What the data plane counts of a member's faults (BackendStats' disruption counters) and the
// connection log's records. Real loopback sockets, ports chosen by the kernel; every wait is
// bounded.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <future>
#include <string>
#include <vector>

#include "proxy/connection_log.h"
#include "proxy/test_support.h"

namespace vigil::proxy {
namespace {

using namespace std::chrono_literals;
using namespace test_support;

// An address nothing listens on: a connect to it is refused at once.
net::SocketAddress refusing() {
  auto fd = net::listen_tcp(loopback(), {.reuse_port = false});
  return *net::local_address(fd->get());  // closed when fd goes
}

std::string exchange(int fd, const std::string& bytes) {
  EXPECT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(bytes.size()));
  std::string got(bytes.size(), '\0');
  size_t n = 0;
  while (n < got.size()) {
    const ssize_t r = ::recv(fd, got.data() + n, got.size() - n, 0);
    if (r <= 0) break;
    n += static_cast<size_t>(r);
  }
  got.resize(n);
  return got;
}

size_t close_sessions_of(Worker& w, const Backend& b) {
  std::promise<size_t> closed;
  w.close_member_sessions(b.stats, [&](size_t n) { closed.set_value(n); });
  auto f = closed.get_future();
  EXPECT_EQ(f.wait_for(5s), std::future_status::ready);
  return f.get();
}

std::vector<ConnectionRecord> drain(Worker& w) {
  std::vector<ConnectionRecord> out;
  w.connection_log().drain([&](const ConnectionRecord& r) { out.push_back(r); });
  return out;
}

TEST(Disruption, AConnectMovedAwayFromARefusingMemberIsItsRetry) {
  Member good;
  Proxy proxy({refusing(), good.address()});
  for (int i = 0; i < 2; ++i) {  // round robin: one of them goes to the refusing member first
    EXPECT_EQ(echo_through(proxy.address(), "ping"), "ping");
  }
  const BackendStats& bad = *proxy.pool().candidates[0].stats;
  const BackendStats& ok = *proxy.pool().candidates[1].stats;
  EXPECT_EQ(bad.retries.load(), 1u);
  EXPECT_EQ(bad.failed_sessions.load(), 0u) << "the client was served";
  EXPECT_EQ(ok.retries.load(), 0u);
  EXPECT_EQ(ok.disruption(), model::DisruptionCounts{});
}

TEST(Disruption, NoMemberLeftAfterAFaultIsAFailedSession) {
  Proxy proxy({refusing()});
  net::Fd client = connect_blocking(proxy.address());
  EXPECT_TRUE(closed_by_peer(client.get()));
  const BackendStats& bad = *proxy.pool().candidates[0].stats;
  EXPECT_TRUE(eventually([&] { return bad.failed_sessions.load() == 1; }));
  EXPECT_EQ(bad.retries.load(), 0u);
}

TEST(Disruption, AFirstFlightMovedAwayFromASilentMemberIsItsReplay) {
  auto hung = net::listen_tcp(loopback(), {.reuse_port = false});  // accepts, never answers
  Member good;
  Proxy proxy({*net::local_address(hung->get()), good.address()},
              PoolSnapshot{.connect_timeout = 1s,
                           .hedge_after = 0s,
                           .first_byte_timeout = 200ms,
                           .replay = Replay::kTls});
  net::Fd client = connect_blocking(proxy.address());
  const std::string hello = std::string{'\x16', '\x03', '\x01', '\x00', '\x02'} + "hi";
  EXPECT_EQ(exchange(client.get(), hello), hello);
  const BackendStats& silent = *proxy.pool().candidates[0].stats;
  EXPECT_EQ(silent.replays.load(), 1u);
  EXPECT_EQ(silent.retries.load(), 0u) << "a replay is not counted twice";
  EXPECT_EQ(silent.failed_sessions.load(), 0u);
}

TEST(Disruption, ClosingAMembersSessionsCountsThoseWithAnswersApartFromThoseWithout) {
  Member good;
  Proxy proxy({good.address()});
  net::Fd answered = connect_blocking(proxy.address());
  EXPECT_EQ(exchange(answered.get(), "hello"), "hello");
  net::Fd waiting = connect_blocking(proxy.address());  // connected; nothing came back yet
  const BackendStats& m = *proxy.pool().candidates[0].stats;
  ASSERT_TRUE(eventually([&] { return m.active.load() == 2; }));
  EXPECT_EQ(close_sessions_of(proxy.worker(), proxy.pool().candidates[0]), 2u);
  EXPECT_TRUE(closed_by_peer(answered.get()));
  EXPECT_TRUE(closed_by_peer(waiting.get()));
  EXPECT_EQ(m.sessions_closed.load(), 1u);
  EXPECT_EQ(m.failed_sessions.load(), 1u) << "its client never had a byte from a member";
}

TEST(ConnectionLog, ASessionEndLeavesARecordOfItsLife) {
  Member good;
  Proxy proxy({good.address()}, PoolSnapshot{.connect_timeout = 1s, .hedge_after = 0s}, 1000, 1h,
              /*log_connections=*/true);
  {
    net::Fd client = connect_blocking(proxy.address());
    EXPECT_EQ(exchange(client.get(), "hello"), "hello");
  }  // the client closes
  std::vector<ConnectionRecord> records;
  ASSERT_TRUE(eventually([&] {
    for (const ConnectionRecord& r : drain(proxy.worker())) records.push_back(r);
    return !records.empty();
  }));
  ASSERT_EQ(records.size(), 1u);
  const ConnectionRecord& r = records[0];
  EXPECT_EQ(r.listener_name(), "l");
  EXPECT_TRUE(r.client().starts_with("127.0.0.1:")) << r.client();
  EXPECT_EQ(r.member_serial, proxy.pool().candidates[0].stats->serial);
  EXPECT_EQ(r.bytes_in, 5u);
  EXPECT_EQ(r.bytes_out, 5u);
  EXPECT_EQ(r.end, SessionEnd::kClientClose);
  EXPECT_NE(r.connected, TimePoint{});
  EXPECT_LE(r.accepted, r.connected);
  EXPECT_LE(r.connected, r.ended);
  EXPECT_EQ(r.retries, 0);
  EXPECT_FALSE(r.replayed);
}

// The records of the sessions that ended, once there is one (waits a bounded time).
std::vector<ConnectionRecord> ended(Worker& w) {
  std::vector<ConnectionRecord> records;
  EXPECT_TRUE(eventually([&] {
    for (const ConnectionRecord& r : drain(w)) records.push_back(r);
    return !records.empty();
  }));
  return records;
}

TEST(ConnectionLog, AnOperatorsKillEndsAsKilledAndAMarkDownAsMemberDown) {
  Member good;
  Proxy proxy({good.address()}, PoolSnapshot{.connect_timeout = 1s, .hedge_after = 0s}, 1000, 1h,
              /*log_connections=*/true);
  const Backend& member = proxy.pool().candidates[0];
  for (const SessionEnd why : {SessionEnd::kKilled, SessionEnd::kMemberDown}) {
    net::Fd client = connect_blocking(proxy.address());
    EXPECT_EQ(exchange(client.get(), "hello"), "hello");
    std::promise<size_t> closed;
    proxy.worker().close_member_sessions(
        member.stats, [&](size_t n) { closed.set_value(n); }, why);
    auto count = closed.get_future();
    ASSERT_EQ(count.wait_for(5s), std::future_status::ready);
    EXPECT_EQ(count.get(), 1u);
    EXPECT_TRUE(closed_by_peer(client.get()));
    const std::vector<ConnectionRecord> records = ended(proxy.worker());
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(records[0].end, why) << to_string(why);
  }
  // Without a cause, a mark-down's: what the control plane's close on a transition relies on.
  net::Fd client = connect_blocking(proxy.address());
  EXPECT_EQ(exchange(client.get(), "again"), "again");
  EXPECT_EQ(close_sessions_of(proxy.worker(), member), 1u);
  const std::vector<ConnectionRecord> records = ended(proxy.worker());
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].end, SessionEnd::kMemberDown);
}

TEST(ConnectionLog, AMemberThatResetsAndAnUnloggedListener) {
  Member resets(Member::kResetAfterRead);
  Proxy logged({resets.address()}, PoolSnapshot{.connect_timeout = 1s, .hedge_after = 0s}, 1000, 1h,
               /*log_connections=*/true);
  net::Fd client = connect_blocking(logged.address());
  ASSERT_EQ(::send(client.get(), "x", 1, MSG_NOSIGNAL), 1);
  EXPECT_TRUE(closed_by_peer(client.get()));
  std::vector<ConnectionRecord> records;
  ASSERT_TRUE(eventually([&] {
    for (const ConnectionRecord& r : drain(logged.worker())) records.push_back(r);
    return !records.empty();
  }));
  EXPECT_EQ(records[0].end, SessionEnd::kMemberReset);

  Member good;
  Proxy quiet({good.address()});
  EXPECT_EQ(echo_through(quiet.address(), "ping"), "ping");
  EXPECT_TRUE(eventually([&] { return quiet.stats().active.load() == 0; }));
  EXPECT_TRUE(drain(quiet.worker()).empty()) << "log_connections is off";
}

TEST(ConnectionRing, AFullRingDropsAndCountsInsteadOfWaiting) {
  ConnectionRing ring(4);
  ConnectionRecord r;
  for (int i = 0; i < 4; ++i) {
    r.bytes_in = static_cast<uint64_t>(i);
    EXPECT_TRUE(ring.push(r));
  }
  EXPECT_FALSE(ring.push(r));
  EXPECT_EQ(ring.dropped(), 1u);
  std::vector<uint64_t> seen;
  EXPECT_EQ(ring.drain([&](const ConnectionRecord& x) { seen.push_back(x.bytes_in); }), 4u);
  EXPECT_EQ(seen, (std::vector<uint64_t>{0, 1, 2, 3}));
  EXPECT_TRUE(ring.push(r)) << "room again once drained";
  EXPECT_EQ(ring.drain([](const ConnectionRecord&) {}), 1u);
}

}  // namespace
}  // namespace vigil::proxy
