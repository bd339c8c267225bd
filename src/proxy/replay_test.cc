// The first flight kept until the member's first byte, and replayed on another member when the
// first one never answers or resets (session_replay.cc). Real loopback sockets, ports chosen by
// the kernel; every wait is bounded.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

#include <cstdio>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "proxy/session.h"
#include "proxy/test_support.h"

namespace vigil::proxy {
namespace {

using namespace std::chrono_literals;
using namespace test_support;

// A hung master: the process is stopped, its kernel still completes handshakes from the backlog
// and takes the bytes, nobody ever reads them or answers.
struct HungMember {
  HungMember() {
    fd = std::move(*net::listen_tcp(loopback(), {.reuse_port = false}));
    address = *net::local_address(fd.get());
  }
  // Accepts the first queued connection and returns what it received until it went quiet.
  std::string received() const {
    pollfd p{.fd = fd.get(), .events = POLLIN, .revents = 0};
    if (::poll(&p, 1, 5000) != 1) return "(no connection)";
    net::Fd c(::accept4(fd.get(), nullptr, nullptr, SOCK_CLOEXEC));
    std::string got;
    char buf[65536];
    for (;;) {
      pollfd q{.fd = c.get(), .events = POLLIN, .revents = 0};
      if (::poll(&q, 1, 200) != 1) return got;
      const ssize_t n = ::recv(c.get(), buf, sizeof buf, MSG_DONTWAIT);
      if (n <= 0) return got;
      got.append(buf, static_cast<size_t>(n));
    }
  }
  net::Fd fd;
  net::SocketAddress address;
};

PoolSnapshot watching(Replay replay, Duration first_byte_timeout = 200ms) {
  return PoolSnapshot{.connect_timeout = 1s,
                      .hedge_after = 0s,
                      .first_byte_timeout = first_byte_timeout,
                      .replay = replay};
}

// A TLS handshake record header (type 22, version 3.1, length) and `body` random bytes.
std::string tls_flight(size_t body, uint32_t seed = 1) {
  std::string s = {'\x16', '\x03', '\x01', static_cast<char>(body >> 8), static_cast<char>(body)};
  return s + random_bytes(body, seed);
}

void send_all(int fd, const std::string& bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    ASSERT_GT(n, 0);
    off += static_cast<size_t>(n);
  }
}

// Reads `n` bytes, or fewer when the connection ends or stays quiet for the socket's 5 s timeout.
std::string read_exactly(int fd, size_t n) {
  std::string got;
  char buf[65536];
  while (got.size() < n) {
    const ssize_t r = ::recv(fd, buf, std::min(sizeof buf, n - got.size()), 0);
    if (r <= 0) break;
    got.append(buf, static_cast<size_t>(r));
  }
  return got;
}

// True when nothing arrives on `fd` and it stays open for `quiet`: the session is left waiting.
bool left_waiting(int fd, std::chrono::milliseconds quiet = 600ms) {
  pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
  return ::poll(&p, 1, static_cast<int>(quiet.count())) == 0;
}

// Polls the proxy's reported failures until there are `n`, within a bound.
std::vector<ConnectFailure> wait_for_failures(Proxy& proxy, size_t n) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (proxy.failures().size() < n && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  return proxy.failures();
}

TEST(Replay, SilentMemberTlsFlightIsAnsweredByTheNextMember) {
  HungMember hung;
  Member good;
  Proxy proxy({hung.address, good.address()}, watching(Replay::kTls));
  net::Fd client = connect_blocking(proxy.address());
  const std::string flight = tls_flight(600);
  const auto sent = std::chrono::steady_clock::now();
  send_all(client.get(), flight);
  EXPECT_EQ(read_exactly(client.get(), flight.size()), flight);
  EXPECT_GE(std::chrono::steady_clock::now() - sent, 200ms) << "only after first_byte_timeout";
  send_all(client.get(), "and on");
  EXPECT_EQ(read_exactly(client.get(), 6), "and on") << "the session carries on";
  EXPECT_TRUE(left_waiting(client.get(), 400ms)) << "the member that answered is not watched";

  const auto failures = proxy.failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].member_id, "m0");
  EXPECT_TRUE(failures[0].silent);
  EXPECT_NE(failures[0].reason.find("first_byte_timeout"), std::string::npos);
  EXPECT_EQ(proxy.stats().replayed.load(), 1u);
  EXPECT_EQ(proxy.pool().candidates[0].stats->connect_failures.load(), 1u);
  EXPECT_EQ(proxy.pool().candidates[0].stats->active.load(), 0u);
  EXPECT_EQ(good.accepted(), 1);
}

// Polls the proxy's suspect reports until there are `n`, within a bound.
std::vector<MemberSuspect> wait_for_suspects(Proxy& proxy, size_t n) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (proxy.suspects().size() < n && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  return proxy.suspects();
}

// A client's TLS first flight through a proxy whose first member takes the connection and never
// answers: what the test reads once that member was reported suspect (or the wait ran out).
struct SilentFlight {
  net::Fd client;
  std::string flight = tls_flight(600);
  std::chrono::steady_clock::time_point sent;
  std::vector<MemberSuspect> suspects;
};

SilentFlight send_to_silent_member(Proxy& proxy) {
  SilentFlight f{.client = connect_blocking(proxy.address())};
  f.sent = std::chrono::steady_clock::now();
  send_all(f.client.get(), f.flight);
  f.suspects = wait_for_suspects(proxy, 1);
  return f;
}

TEST(Replay, ASilentMemberIsSuspectAfterATenthOfTheTimeoutThenReportedOnce) {
  static_assert(Session::suspect_after(1s) == 100ms);
  HungMember hung;
  Member good;
  Proxy proxy({hung.address, good.address()}, watching(Replay::kTls, 800ms));
  const SilentFlight f = send_to_silent_member(proxy);
  ASSERT_EQ(f.suspects.size(), 1u);
  EXPECT_GE(std::chrono::steady_clock::now() - f.sent, 80ms) << "not before suspect_after";
  EXPECT_EQ(f.suspects[0].member_id, "m0");
  EXPECT_EQ(f.suspects[0].pool, "p");
  EXPECT_EQ(read_exactly(f.client.get(), f.flight.size()), f.flight)
      << "replayed after the timeout";
  EXPECT_EQ(proxy.failures().size(), 1u) << "then reported silent, as before";
  EXPECT_EQ(proxy.suspects().size(), 1u) << "the member that answered is not suspect";
}

// A session holds one wake-up at a time, at its earliest deadline. Here that is the hedge's (10 ms
// after the accept), which the connect made moot before it came; woken then with nothing to do,
// the session must still keep the later deadlines it learnt meanwhile: the suspect report and the
// first-byte timeout.
TEST(Replay, AnEarlierWakeUpWithNothingDueKeepsTheLaterDeadlines) {
  HungMember hung;
  Member good;
  PoolSnapshot settings = watching(Replay::kTls, 800ms);
  settings.hedge_after = 10ms;
  Proxy proxy({hung.address, good.address()}, settings);
  const SilentFlight f = send_to_silent_member(proxy);
  ASSERT_EQ(f.suspects.size(), 1u);
  EXPECT_GE(std::chrono::steady_clock::now() - f.sent, 80ms) << "not before suspect_after";
  EXPECT_EQ(read_exactly(f.client.get(), f.flight.size()), f.flight)
      << "replayed after the timeout";
  EXPECT_GE(std::chrono::steady_clock::now() - f.sent, 800ms) << "only after first_byte_timeout";
  EXPECT_EQ(proxy.stats().hedged.load(), 0u) << "both connects completed at once";
  EXPECT_EQ(proxy.failures().size(), 1u);
}

// A member that answers late, but within first_byte_timeout, is checked (suspect) and nothing
// else: not reported, not replaced, the session carries on with it.
TEST(Replay, ASlowMemberIsOnlySuspect) {
  Member slow(Member::kSlowEcho);
  Member good;
  Proxy proxy({slow.address(), good.address()}, watching(Replay::kTls, 1s));
  net::Fd client = connect_blocking(proxy.address());
  const std::string flight = tls_flight(600);
  send_all(client.get(), flight);
  EXPECT_EQ(read_exactly(client.get(), flight.size()), flight);
  const auto suspects = wait_for_suspects(proxy, 1);
  ASSERT_EQ(suspects.size(), 1u) << "answered after kSlowBy > suspect_after(1s)";
  EXPECT_EQ(suspects[0].member_id, "m0");
  EXPECT_TRUE(proxy.failures().empty());
  EXPECT_EQ(proxy.stats().replayed.load(), 0u);
  EXPECT_EQ(good.accepted(), 0);
  EXPECT_EQ(slow.accepted(), 1);
}

TEST(Replay, ASlowMembersManySessionsMakeOneSuspectReport) {
  Member slow(Member::kSlowEcho);
  Proxy proxy({slow.address()}, watching(Replay::kTls, 1s));
  std::vector<net::Fd> clients;
  const std::string flight = tls_flight(600);
  for (int i = 0; i < 3; ++i) {
    clients.push_back(connect_blocking(proxy.address()));
    send_all(clients.back().get(), flight);
  }
  for (const net::Fd& c : clients) EXPECT_EQ(read_exactly(c.get(), flight.size()), flight);
  EXPECT_EQ(proxy.suspects().size(), 1u) << "one per member per first_byte_timeout";
  EXPECT_TRUE(proxy.failures().empty());
}

TEST(Replay, SuspectReportsAreThrottledPerMember) {
  struct Case {
    const char* description;
    std::vector<Duration> at;  // when a worker would report, after the first report at 0
    std::vector<bool> taken;
  };
  const Case cases[] = {
      {.description = "the first one", .at = {0s}, .taken = {true}},
      {.description = "within the period", .at = {0s, 10ms, 999ms}, .taken = {true, false, false}},
      {.description = "a period later, again",
       .at = {0s, 1s, 1500ms, 2s},
       .taken = {true, true, false, true}},
  };
  const TimePoint start = TimePoint{} + 1h;
  for (const Case& c : cases) {
    BackendStats stats;
    for (size_t i = 0; i < c.at.size(); ++i) {
      EXPECT_EQ(stats.take_suspect_report(start + c.at[i], 1s), c.taken[i])
          << c.description << " #" << i;
    }
  }
}

// The control plane closes a member's sessions (it stopped answering connects and checks). A
// session whose first flight still waits for that member's first byte is not cut: its flight
// goes to another member at once, so the client (kubectl mid-handshake) never sees an EOF.
TEST(Replay, ClosingAMembersSessionsMovesAWaitingFirstFlightInstead) {
  HungMember hung;
  Member good;
  Proxy proxy({hung.address, good.address()}, watching(Replay::kTls, 30s));
  net::Fd client = connect_blocking(proxy.address());
  const std::string flight = tls_flight(600);
  send_all(client.get(), flight);
  const BackendStats& first = *proxy.pool().candidates[0].stats;
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (first.bytes_out.load() < flight.size() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_EQ(first.bytes_out.load(), flight.size()) << "the flight went to the hung member";

  std::promise<size_t> closed;
  proxy.worker().close_member_sessions(proxy.pool().candidates[0].stats,
                                       [&](size_t n) { closed.set_value(n); });
  auto count = closed.get_future();
  ASSERT_EQ(count.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(count.get(), 0u) << "moved, not closed";
  EXPECT_EQ(read_exactly(client.get(), flight.size()), flight) << "long before first_byte_timeout";
  EXPECT_EQ(proxy.stats().replayed.load(), 1u);
  EXPECT_TRUE(proxy.failures().empty()) << "the control plane decided it; nothing to report";
  EXPECT_EQ(first.active.load(), 0u);
}

TEST(Replay, MemberThatResetsBeforeAnsweringIsReplacedAndReportedNotSilent) {
  Member resets(Member::kResetAfterRead);
  Member good;
  Proxy proxy({resets.address(), good.address()}, watching(Replay::kTls, 5s));
  net::Fd client = connect_blocking(proxy.address());
  const std::string flight = tls_flight(600);
  send_all(client.get(), flight);
  EXPECT_EQ(read_exactly(client.get(), flight.size()), flight);
  const auto failures = proxy.failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].member_id, "m0");
  EXPECT_FALSE(failures[0].silent);
  EXPECT_GE(resets.bytes_read(), 1u) << "it read before resetting";
  EXPECT_EQ(proxy.stats().replayed.load(), 1u);
}

TEST(Replay, ASnapshotPublishedMeanwhileDoesNotSendTheReplayBackToTheSilentMember) {
  HungMember hung;
  Member good;
  Proxy proxy({hung.address, good.address()}, watching(Replay::kTls));
  net::Fd client = connect_blocking(proxy.address());
  const std::string flight = tls_flight(600);
  send_all(client.get(), flight);
  // The same members in a new snapshot: a fresh balancer would pick the first member again.
  auto next = std::make_shared<PoolSnapshot>(proxy.pool());
  next->version = 2;
  proxy.publish(next);
  EXPECT_EQ(read_exactly(client.get(), flight.size()), flight);
  EXPECT_EQ(proxy.failures().size(), 1u);
  EXPECT_EQ(proxy.stats().replayed.load(), 1u);
}

TEST(Replay, HalfClosedClientsFlightIsReplayedWithItsEnd) {
  HungMember hung;
  Member answers_at_eof(Member::kAnswerAtEof);
  Proxy proxy({hung.address, answers_at_eof.address()}, watching(Replay::kTls));
  EXPECT_EQ(echo_through(proxy.address(), tls_flight(595)), "got 600 bytes");
  EXPECT_EQ(proxy.stats().replayed.load(), 1u);
}

TEST(Replay, NonTlsFlightUnderTlsIsNotReplayedAndLeftWaiting) {
  HungMember hung;
  Member good;
  Proxy proxy({hung.address, good.address()}, watching(Replay::kTls));
  net::Fd client = connect_blocking(proxy.address());
  const std::string request = "GET / HTTP/1.1\r\nHost: api\r\n\r\n";
  send_all(client.get(), request);
  EXPECT_TRUE(left_waiting(client.get())) << "as without the watch: the member may be working";
  EXPECT_TRUE(proxy.failures().empty()) << "a slow answer to a request is not a hang";
  EXPECT_EQ(proxy.stats().replayed.load(), 0u);
  EXPECT_EQ(good.accepted(), 0);
  EXPECT_EQ(hung.received(), request) << "sent once, to the first member only";
}

TEST(Replay, AlwaysReplaysAPlainTextFlight) {
  HungMember hung;
  Member good;
  Proxy proxy({hung.address, good.address()}, watching(Replay::kAlways));
  net::Fd client = connect_blocking(proxy.address());
  send_all(client.get(), "PING\r\n");
  EXPECT_EQ(read_exactly(client.get(), 6), "PING\r\n");
  EXPECT_EQ(proxy.stats().replayed.load(), 1u);
}

TEST(Replay, NeverReportsASilentMemberButKeepsWaitingOnIt) {
  HungMember hung;
  Member good;
  Proxy proxy({hung.address, good.address()}, watching(Replay::kNever));
  net::Fd client = connect_blocking(proxy.address());
  const std::string flight = tls_flight(600);
  send_all(client.get(), flight);
  const auto failures = wait_for_failures(proxy, 1);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].member_id, "m0");
  EXPECT_TRUE(failures[0].silent);
  EXPECT_TRUE(left_waiting(client.get()));
  EXPECT_EQ(proxy.failures().size(), 1u) << "reported once";
  EXPECT_EQ(proxy.stats().replayed.load(), 0u);
  EXPECT_EQ(good.accepted(), 0);
  EXPECT_EQ(hung.received(), flight);
}

TEST(Replay, NeverClosesTheClientWhenTheMemberResetsBeforeAnswering) {
  Member resets(Member::kResetAfterRead);
  Member good;
  Proxy proxy({resets.address(), good.address()}, watching(Replay::kNever, 5s));
  net::Fd client = connect_blocking(proxy.address());
  send_all(client.get(), tls_flight(600));
  EXPECT_TRUE(closed_by_peer(client.get()));
  const auto failures = proxy.failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_FALSE(failures[0].silent);
  EXPECT_EQ(good.accepted(), 0);
  EXPECT_EQ(proxy.stats().replayed.load(), 0u);
}

TEST(Replay, FlightOverTheCapIsNotKeptAndTheSessionStillWorks) {
  Member good;
  Proxy proxy({good.address()}, watching(Replay::kTls));
  const std::string payload = tls_flight(1 << 20, 7);
  EXPECT_TRUE(echo_through(proxy.address(), payload) == payload) << "byte-exact 1 MiB echo";
  Member answers_at_eof(Member::kAnswerAtEof);
  Proxy at_eof({answers_at_eof.address()}, watching(Replay::kTls));
  EXPECT_EQ(echo_through(at_eof.address(), payload), "got 1048581 bytes");
  EXPECT_TRUE(proxy.failures().empty());
  EXPECT_TRUE(at_eof.failures().empty());
  EXPECT_EQ(proxy.stats().replayed.load() + at_eof.stats().replayed.load(), 0u);
}

TEST(Replay, FlightOverTheCapToASilentMemberIsNotReplayed) {
  HungMember hung;
  Member good;
  Proxy proxy({hung.address, good.address()}, watching(Replay::kTls));
  net::Fd client = connect_blocking(proxy.address());
  send_all(client.get(), tls_flight(2 * Session::kFirstFlightCap));
  EXPECT_TRUE(left_waiting(client.get()));
  EXPECT_TRUE(proxy.failures().empty());
  EXPECT_EQ(good.accepted(), 0);
}

TEST(Replay, WhenEveryMemberIsSilentTheClientIsClosed) {
  HungMember first, second;
  Proxy proxy({first.address, second.address}, watching(Replay::kTls, 100ms));
  net::Fd client = connect_blocking(proxy.address());
  send_all(client.get(), tls_flight(600));
  EXPECT_TRUE(closed_by_peer(client.get()));
  EXPECT_EQ(proxy.stats().no_backend.load(), 1u);
  EXPECT_EQ(proxy.stats().replayed.load(), 1u);
  const auto failures = proxy.failures();
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_TRUE(failures[0].silent && failures[1].silent);
}

TEST(Replay, ReplaysStayWithinTheRetriesBudget) {
  HungMember first, second;
  Member good;
  PoolSnapshot settings = watching(Replay::kTls, 100ms);
  settings.retries = 1;
  Proxy proxy({first.address, second.address, good.address()}, settings);
  net::Fd client = connect_blocking(proxy.address());
  send_all(client.get(), tls_flight(600));
  EXPECT_TRUE(closed_by_peer(client.get()));
  EXPECT_EQ(proxy.stats().no_backend.load(), 1u);
  EXPECT_EQ(good.accepted(), 0);
}

TEST(Replay, AHedgedConnectAndThenASilentMemberStillEndWithTheAnswer) {
  // The first member drops SYNs (its accept queue is full), the hedge reaches the second, which
  // is hung; the replay reaches the third.
  auto blackhole = net::listen_tcp(loopback(), {.reuse_port = false, .backlog = 0});
  const auto hole = *net::local_address(blackhole->get());
  std::vector<net::Fd> fillers;
  for (int i = 0; i < 4; ++i) fillers.push_back(std::move(net::connect_nonblocking(hole)->fd));
  HungMember hung;
  Member good;
  PoolSnapshot settings = watching(Replay::kTls);
  settings.connect_timeout = 30s;
  settings.hedge_after = 50ms;
  Proxy proxy({hole, hung.address, good.address()}, settings);
  net::Fd client = connect_blocking(proxy.address());
  const std::string flight = tls_flight(600);
  send_all(client.get(), flight);
  EXPECT_EQ(read_exactly(client.get(), flight.size()), flight);
  const auto failures = proxy.failures();
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_EQ(failures[0].member_id, "m0");
  EXPECT_NE(failures[0].reason.find("hedge_after"), std::string::npos);
  EXPECT_EQ(failures[1].member_id, "m1");
  EXPECT_NE(failures[1].reason.find("first_byte_timeout"), std::string::npos);
  EXPECT_EQ(proxy.stats().replayed.load(), 1u);
}

TEST(Replay, ServerFirstMemberThatSpokeIsNotWatched) {
  Member banner(Member::kBannerThenSilent);
  Member good;
  Proxy proxy({banner.address(), good.address()}, watching(Replay::kAlways));
  net::Fd client = connect_blocking(proxy.address());
  const std::string expected = Member::kBanner;
  EXPECT_EQ(read_exactly(client.get(), expected.size()), expected);
  send_all(client.get(), "SSH-2.0-client\r\n");
  EXPECT_TRUE(left_waiting(client.get()));
  EXPECT_TRUE(proxy.failures().empty());
  EXPECT_EQ(good.accepted(), 0);
}

TEST(Replay, ClientThatSendsNothingStartsNoClock) {
  HungMember hung;
  Member good;
  Proxy proxy({hung.address, good.address()}, watching(Replay::kTls));
  net::Fd client = connect_blocking(proxy.address());
  EXPECT_TRUE(left_waiting(client.get()));
  EXPECT_TRUE(proxy.failures().empty());
  EXPECT_EQ(good.accepted(), 0);
}

// A TCP probe of the listener (keepalived, a cloud's load balancer) connects and closes at once;
// the member then closes too. That is the member answering the client's end, not a fault: a
// report here took healthy members out of rotation under every port probe.
TEST(Replay, MemberClosingAfterTheClientLeftIsNotReported) {
  Member echo;
  Member other;
  Proxy proxy({echo.address(), other.address()}, watching(Replay::kTls));
  net::Fd client = connect_blocking(proxy.address());
  ::shutdown(client.get(), SHUT_WR);
  EXPECT_EQ(read_exactly(client.get(), 1), "") << "the session ends with the member's close";
  EXPECT_TRUE(proxy.failures().empty());
  EXPECT_EQ(proxy.pool().candidates[0].stats->connect_failures.load(), 0u);
  EXPECT_EQ(other.accepted(), 0);
}

TEST(Replay, ZeroTimeoutLeavesTheSessionWaitingOnASilentMember) {
  HungMember hung;
  Member good;
  Proxy proxy({hung.address, good.address()}, PoolSnapshot{.hedge_after = 0s});
  net::Fd client = connect_blocking(proxy.address());
  const std::string flight = tls_flight(600);
  send_all(client.get(), flight);
  EXPECT_TRUE(left_waiting(client.get()));
  EXPECT_TRUE(proxy.failures().empty());
  EXPECT_EQ(proxy.stats().replayed.load(), 0u);
  EXPECT_EQ(good.accepted(), 0);
  EXPECT_EQ(hung.received(), flight);
  client.reset();  // the test ends the session; the worker closes its side
}

TEST(Replay, SessionSizeStaysAsItWas) {
  std::printf("sizeof(Session) = %zu\n", sizeof(Session));
  // The connection log's own (bytes each way, accept and connect times) are 32 bytes; everything
  // else it and the disruption counts need sits in what was padding.
  EXPECT_LE(sizeof(Session), 424u) << "392 before the first flight was kept, 424 with the "
                                      "connection log's bytes and times";
}

}  // namespace
}  // namespace vigil::proxy
