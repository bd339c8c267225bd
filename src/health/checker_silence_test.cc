// HealthChecker::confirm_silence: a check that had no byte from the member by the time asked is
// reported then, not at its timeout; one the member answered, or an HTTP check, is not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "health/checker_fixture.h"
#include "health/test_tls_server.h"
#include "net/socket.h"

namespace vigil::health {
namespace {

using model::MonitorType;
using model::Outcome;
using testing::Behaviour;
using testing::TestServer;
using testing::TlsVersion;

// A hung member: its kernel completes handshakes into the backlog, its process never accepts.
class HungMember {
 public:
  HungMember() : fd_(listen()) {}
  uint16_t port() const { return net::local_address(fd_.get())->port(); }

 private:
  static net::Fd listen() {
    auto fd = net::listen_tcp(*net::SocketAddress::from_ip("127.0.0.1", 0), {.reuse_port = false});
    return fd ? std::move(*fd) : net::Fd();
  }
  net::Fd fd_;
};

class SilenceTest : public CheckerTest {
 protected:
  SilenceTest() {
    checker_.on_silence([this](const Silence& s) { silent_.emplace_back(s.member_id); });
  }

  // Checked once an hour: the only checks are the first one and those the test asks for.
  Target target(MonitorType type, uint16_t port) {
    Target t = http_target("m1", port);
    t.monitor.type = type;
    t.monitor.interval = 1h;
    t.monitor.timeout = 1s;
    return t;
  }

  std::vector<std::string> silent_;
};

TEST_F(SilenceTest, ACheckTheMemberSentNothingToIsReportedWhenAskedNotAtItsTimeout) {
  HungMember hung;
  checker_.set_targets({target(MonitorType::kHttps, hung.port())});
  timers_.advance(0ms);  // the first check: connected by the member's kernel, then nothing
  settle();
  checker_.confirm_silence("m1", clock_.now() + 300ms);
  timers_.advance(299ms);
  settle();
  EXPECT_TRUE(silent_.empty()) << "not yet asked";
  timers_.advance(1ms);
  settle();
  EXPECT_EQ(silent_, std::vector<std::string>{"m1"});
  EXPECT_TRUE(events_.empty()) << "the check itself goes on to its timeout";
  ASSERT_TRUE(advance_until(700ms, 1));
  EXPECT_EQ(events_[0].result.outcome, Outcome::kTimeout);
  EXPECT_EQ(silent_.size(), 1u) << "reported once";
}

// With no check running, the one confirm_silence starts is the one it asks of.
TEST_F(SilenceTest, AskedBetweenChecksItStartsTheCheckItAsksOf) {
  HungMember hung;
  checker_.set_targets({target(MonitorType::kTlsHello, hung.port())});
  ASSERT_TRUE(advance_until(1s, 1));  // the first check timed out: none runs now
  checker_.confirm_silence("m1", clock_.now() + 250ms);
  timers_.advance(250ms);
  settle();
  EXPECT_EQ(silent_, std::vector<std::string>{"m1"});
  EXPECT_EQ(events_.size(), 1u);
}

TEST_F(SilenceTest, AMemberThatSentItsHandshakeIsNotSilentThoughItsAnswerIsLate) {
  TestServer server(io_, {.tls = TlsVersion::kAny});
  server.set_behaviour(Behaviour::kSilent);  // the handshake completes; /readyz never answers
  checker_.set_targets({target(MonitorType::kHttps, server.port())});
  timers_.advance(0ms);
  ASSERT_TRUE(vigil::testing::run_until(io_, [&] { return server.requests().size() == 1; }));
  checker_.confirm_silence("m1", clock_.now() + 300ms);
  timers_.advance(300ms);
  settle();
  EXPECT_TRUE(silent_.empty());
  ASSERT_TRUE(advance_until(700ms, 1));
  EXPECT_EQ(events_[0].result.outcome, Outcome::kTimeout) << "its thresholds still see it";
}

TEST_F(SilenceTest, AnHttpMemberIsLeftToItsChecksTimeout) {
  HungMember hung;
  checker_.set_targets({target(MonitorType::kHttp, hung.port())});
  timers_.advance(0ms);
  settle();
  checker_.confirm_silence("m1", clock_.now() + 300ms);
  timers_.advance(300ms);
  settle();
  EXPECT_TRUE(silent_.empty()) << "its first byte waits for the application's verdict";
  ASSERT_TRUE(advance_until(700ms, 1));
  EXPECT_EQ(events_[0].result.outcome, Outcome::kTimeout);
}

// A check that starts after the one asked of (here: after a removal and a new member under the
// same id) is not judged by the old question.
TEST_F(SilenceTest, AReplacedMemberIsNotJudgedByItsPredecessorsQuestion) {
  HungMember hung;
  checker_.set_targets({target(MonitorType::kHttps, hung.port())});
  timers_.advance(0ms);
  settle();
  checker_.confirm_silence("m1", clock_.now() + 300ms);
  checker_.set_targets({});
  checker_.set_targets({target(MonitorType::kHttps, hung.port())});
  timers_.advance(0ms);
  settle();
  timers_.advance(300ms);
  settle();
  EXPECT_TRUE(silent_.empty());
}

}  // namespace
}  // namespace vigil::health
