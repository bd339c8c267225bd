// A check that cannot get a socket (a client flood has taken every descriptor) is our failure,
// not the member's: it reaches the callback as kLocalError and leaves the threshold untouched.
#include "health/local_failure.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <cerrno>
#include <optional>
#include <set>

#include "health/checker.h"
#include "health/test_tls_server.h"
#include "health/tls_context.h"
#include "testing/manual_clock.h"
#include "testing/manual_timer.h"
#include "testing/run_until.h"

namespace vigil::health {
namespace {

using namespace std::chrono_literals;
using model::Health;
using model::MonitorType;
using model::Outcome;
using testing::TestServer;

TEST(SocketFailure, SaysWhoseFaultItIs) {
  struct Case {
    int error;
    Outcome expected;
  };
  const Case cases[] = {
      {.error = EMFILE, .expected = Outcome::kLocalError},
      {.error = ENFILE, .expected = Outcome::kLocalError},
      {.error = ENOBUFS, .expected = Outcome::kLocalError},
      {.error = ENOMEM, .expected = Outcome::kLocalError},
      {.error = EADDRNOTAVAIL, .expected = Outcome::kLocalError},
      {.error = ECONNREFUSED, .expected = Outcome::kRefused},
      {.error = ECONNRESET, .expected = Outcome::kRefused},
      {.error = ENETUNREACH, .expected = Outcome::kNetworkError},
      {.error = EHOSTUNREACH, .expected = Outcome::kNetworkError},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(socket_failure("socket", c.error).outcome, c.expected) << c.error;
  }
  EXPECT_EQ(socket_failure("socket", EMFILE).detail, "socket: Too many open files");
}

// A CA file that cannot be opened for want of a descriptor is ours, not a bad file. OpenSSL opens
// it with fopen(), past any seam: the process really runs out of descriptors, but in a death
// test's forked child, so the limit it lowers is its own.
// In the child: with every descriptor taken, is the CA file's failure local? Exits 0 if so.
[[noreturn]] void load_ca_without_descriptors() {
  const rlimit low{.rlim_cur = 64, .rlim_max = 64};
  if (::setrlimit(RLIMIT_NOFILE, &low) != 0) ::_exit(2);
  while (::open("/dev/null", O_RDONLY | O_CLOEXEC) >= 0) {
  }
  TlsContexts contexts;
  model::TlsCheck tls;
  tls.verify = true;
  tls.ca_file = "/dev/null";
  auto ctx = contexts.get(tls);
  ::_exit(!ctx && ctx.error().local ? 0 : 1);
}

TEST(TlsContextsDeathTest, OutOfDescriptorsIsLocal) {
#if defined(__SANITIZE_ADDRESS__)
  // The sanitizers' runtime needs descriptors of its own (it reads /proc/self/maps to check a
  // vptr): with none left it reports a false "invalid vptr" in the child. The dev build runs it.
  GTEST_SKIP() << "the sanitizer runtime cannot work without file descriptors";
#endif
  EXPECT_EXIT(load_ca_without_descriptors(), ::testing::ExitedWithCode(0), "");
  // And an unreadable file is not.
  TlsContexts contexts;
  model::TlsCheck tls;
  tls.verify = true;
  tls.ca_file = "/nonexistent/ca.pem";
  auto ctx = contexts.get(tls);
  ASSERT_FALSE(ctx);
  EXPECT_FALSE(ctx.error().local) << ctx.error().message;
}

// The seam: socket() fails with EMFILE while `out_of_fds` is set, as when clients hold every
// descriptor the process may open.
bool out_of_fds = false;
int flaky_socket(int domain, int type, int protocol) {
  if (out_of_fds) {
    errno = EMFILE;
    return -1;
  }
  return ::socket(domain, type, protocol);
}

// Checks run on a manual clock; the probes' I/O is real, on loopback. Nothing sleeps.
class LocalFailureTest : public ::testing::TestWithParam<MonitorType> {
 protected:
  static constexpr Duration kInterval = 50ms;
  static constexpr Duration kFastInterval = 20ms;

  LocalFailureTest() { out_of_fds = false; }
  ~LocalFailureTest() override { out_of_fds = false; }

  Target target(uint16_t port) {
    Target t{.member_id = "m1", .address = "127.0.0.1", .port = port};
    t.monitor.type = GetParam();         // TCP goes through TcpChecks, HTTP through Asio
    t.monitor.reuse_connection = false;  // every check needs a new socket
    t.monitor.interval = kInterval;
    t.monitor.fast_interval = kFastInterval;
    t.monitor.timeout = 1s;
    t.monitor.healthy_threshold = 2;
    t.monitor.unhealthy_threshold = 3;
    return t;
  }

  bool advance_until(Duration by, size_t results) {
    timers_.advance(by);
    return vigil::testing::run_until(io_, [&] { return events_.size() >= results; });
  }

  // Advances to the checker's next wakeup, the next check's start (nothing is in flight), and
  // waits for its result; returns how far that was, or nullopt when no result came.
  std::optional<Duration> next_check() {
    const std::optional<TimePoint> at = timers_.next_deadline();
    if (!at) return std::nullopt;
    const Duration wait = *at - clock_.now();
    if (!advance_until(wait, events_.size() + 1)) return std::nullopt;
    return wait;
  }

  boost::asio::io_context io_;
  vigil::testing::ManualClock clock_;
  vigil::testing::ManualTimerSource timers_{clock_};
  std::vector<Event> events_;
  std::set<std::string, std::less<>> ids_;
  HealthChecker checker_{io_, clock_, timers_,
                         [this](const Event& e) {
                           Event copy = e;
                           copy.member_id = *ids_.emplace(e.member_id).first;
                           events_.push_back(copy);
                         },
                         7,
                         // Every check opens a socket: none kept idle between TCP checks.
                         CheckSockets{.open = &flaky_socket, .idle_tcp = 0}};
};

TEST_P(LocalFailureTest, NeverCountsAgainstAnUpMember) {
  TestServer server(io_);
  server.set_behaviour(testing::Behaviour::kRespond, testing::http_response(200, "ok"));
  checker_.set_targets({target(server.port())});
  ASSERT_TRUE(advance_until(0ms, 1));
  ASSERT_EQ(events_.back().health, Health::kUp);

  out_of_fds = true;
  // Twice the unhealthy threshold: counted, these would have taken the member down.
  for (int i = 0; i < 6; ++i) {
    const std::optional<Duration> wait = next_check();
    ASSERT_TRUE(wait) << i;
    // Each at the normal interval (±10 % jitter), not the fast one: nothing is under way.
    if (i > 0) {
      EXPECT_GE(*wait, kInterval * 8 / 10) << i;
    }
    const Event& e = events_.back();
    EXPECT_EQ(e.result.outcome, Outcome::kLocalError) << i;
    EXPECT_EQ(e.result.detail, "socket: Too many open files");
    EXPECT_EQ(e.health, Health::kUp);
    EXPECT_FALSE(e.changed);
    EXPECT_EQ(e.successes, 1);
    EXPECT_EQ(e.failures, 0);
  }
  EXPECT_EQ(events_.size(), 7u);
  EXPECT_EQ(checker_.local_failures(), 6u);
  EXPECT_EQ(checker_.health("m1"), Health::kUp);

  out_of_fds = false;
  ASSERT_TRUE(next_check());
  EXPECT_EQ(events_.back().result.outcome, Outcome::kOk);
  EXPECT_EQ(events_.back().successes, 2);  // the run of successes went on across the episode
  EXPECT_EQ(checker_.local_failures(), 6u);
}

TEST_P(LocalFailureTest, NeitherBringsUpNorResetsADownMember) {
  TestServer server(io_);
  server.set_behaviour(testing::Behaviour::kClose);  // TCP: connects, so up; HTTP: bad answer
  Target t = target(server.port());
  if (GetParam() == MonitorType::kTcp) t.port = 1;  // nothing listens there: refused
  checker_.set_targets({t});
  ASSERT_TRUE(advance_until(0ms, 1));
  ASSERT_EQ(events_.back().health, Health::kDown);
  const int failures = events_.back().failures;

  out_of_fds = true;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(next_check()) << i;
    EXPECT_EQ(events_.back().result.outcome, Outcome::kLocalError);
    EXPECT_EQ(events_.back().health, Health::kDown);
    EXPECT_EQ(events_.back().failures, failures);
    EXPECT_EQ(events_.back().successes, 0);
  }
  EXPECT_EQ(checker_.health("m1"), Health::kDown);
}

TEST_P(LocalFailureTest, LeavesAnUncheckedMemberUnchecked) {
  TestServer server(io_);
  server.set_behaviour(testing::Behaviour::kRespond, testing::http_response(200, "ok"));
  out_of_fds = true;
  checker_.set_targets({target(server.port())});
  ASSERT_TRUE(advance_until(0ms, 1));
  EXPECT_EQ(events_.back().result.outcome, Outcome::kLocalError);
  EXPECT_EQ(events_.back().health, Health::kUnchecked);
  EXPECT_EQ(checker_.health("m1"), Health::kUnchecked);
  out_of_fds = false;
  // Unchecked is a change under way: the next check comes at the fast interval.
  const std::optional<Duration> wait = next_check();
  ASSERT_TRUE(wait);
  EXPECT_LE(*wait, kFastInterval * 12 / 10);
  EXPECT_EQ(events_.back().health, Health::kUp);
}

INSTANTIATE_TEST_SUITE_P(TcpAndHttp, LocalFailureTest,
                         ::testing::Values(MonitorType::kTcp, MonitorType::kHttp),
                         [](const auto& info) {
                           return std::string(info.param == MonitorType::kTcp ? "Tcp" : "Http");
                         });

}  // namespace
}  // namespace vigil::health
