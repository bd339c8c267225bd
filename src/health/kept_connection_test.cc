// HTTP and HTTPS checks on a kept connection (kept_connection.h): when one is used, when it is
// not, and that a stale one costs a new connection, never a failed check.
#include "health/kept_connection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <functional>
#include <optional>
#include <set>

#include "health/probe.h"
#include "health/test_tls_server.h"
#include "health/tls_resumption.h"
#include "testing/manual_clock.h"
#include "testing/run_until.h"

namespace vigil::health {
namespace {

using namespace std::chrono_literals;
using model::MonitorType;
using model::Outcome;
using testing::Behaviour;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::TestServer;
using testing::TlsVersion;

std::string ok_response() { return vigil::testing::http_response(200, "ok"); }

class KeptConnectionTest : public ::testing::TestWithParam<TlsVersion> {
 protected:
  KeptConnectionTest() { s_.set_behaviour(Behaviour::kKeepAlive, ok_response()); }

  bool tls() const { return GetParam() != TlsVersion::kNone; }

  std::shared_ptr<ProbeTarget> make_target(uint16_t port, bool reuse = true) {
    auto t = std::make_shared<ProbeTarget>(ProbeTarget{.address = "127.0.0.1", .port = port});
    t->monitor.type = tls() ? MonitorType::kHttps : MonitorType::kHttp;
    if (tls()) t->resumption = std::make_shared<TlsResumption>();
    if (reuse) t->kept = std::make_shared<KeptConnection>();
    return t;
  }

  // Starts a check; returns once `on_start` ran (it may act while the check is in flight).
  model::CheckResult check(const std::shared_ptr<ProbeTarget>& target,
                           const std::function<void()>& on_start = {}) {
    std::optional<model::CheckResult> result;
    prober_.start(target, [&](model::CheckResult r) {
      result = std::move(r);
      io_.stop();
    });
    if (on_start) on_start();
    io_.restart();
    io_.run_for(10s);
    EXPECT_TRUE(result.has_value()) << "no result within 10s";
    return result.value_or(model::CheckResult{.outcome = Outcome::kTimeout, .detail = "test"});
  }

  // A member of s_ whose first check passed, its connection kept.
  std::shared_ptr<ProbeTarget> checked_member() {
    auto t = make_target(s_.port());
    const auto r = check(t);
    EXPECT_TRUE(r.ok()) << r.detail;
    return t;
  }

  // Runs the servers' side until `done`, at most 5 s.
  void settle(const std::function<bool()>& done) { vigil::testing::run_until(io_, done); }

  boost::asio::io_context io_;
  vigil::testing::ManualClock clock_;
  Prober prober_{io_, clock_};
  TestServer s_{io_, {.tls = GetParam()}};  // answers each request with 200, keeping connections
};

TEST_P(KeptConnectionTest, PassingChecksShareOneConnection) {
  auto t = make_target(s_.port());
  std::vector<bool> reused;
  for (int i = 0; i < 3; ++i) {
    const auto r = check(t);
    ASSERT_EQ(r.outcome, Outcome::kOk) << r.detail;
    reused.push_back(r.reused_connection);
    clock_.advance(5s);
  }
  EXPECT_EQ(reused, (std::vector<bool>{false, true, true}));
  EXPECT_EQ(s_.accepted(), 1);
  ASSERT_EQ(s_.requests().size(), 3u);
  EXPECT_THAT(s_.requests().front(), Not(HasSubstr("Connection:")));
  if (tls()) {
    settle([&] { return !s_.resumed().empty(); });
    EXPECT_EQ(s_.resumed().size(), 1u);  // one handshake
  }
}

TEST_P(KeptConnectionTest, ANewConnectionAtLeastEveryMinute) {
  auto t = checked_member();
  clock_.advance(30s);
  EXPECT_TRUE(check(t).reused_connection);
  clock_.advance(KeptConnection::kMaxAge - 30s);
  const auto r = check(t);
  EXPECT_TRUE(r.ok()) << r.detail;
  EXPECT_FALSE(r.reused_connection);
  EXPECT_EQ(s_.accepted(), 2);
  if (tls()) {
    // The session is as old as the connection: the new one shakes hands in full and verifies.
    settle([&] { return s_.resumed().size() == 2; });
    EXPECT_EQ(s_.resumed(), (std::vector<bool>{false, false}));
  }
}

TEST_P(KeptConnectionTest, AResumedConnectionIsAsOldAsItsFullHandshake) {
  if (!tls()) GTEST_SKIP() << "HTTPS only";
  auto t = make_target(s_.port());
  ASSERT_TRUE(check(t).ok());  // a full handshake
  clock_.advance(30s);
  s_.close_open_connections();
  ASSERT_TRUE(check(t).ok());  // a new connection, resumed
  clock_.advance(KeptConnection::kMaxAge - 30s);
  const auto r = check(t);  // the new connection is 30 s old, its full handshake a minute
  EXPECT_TRUE(r.ok()) << r.detail;
  EXPECT_FALSE(r.reused_connection);
  settle([&] { return s_.resumed().size() == 3; });
  EXPECT_EQ(s_.resumed(), (std::vector<bool>{false, true, false}));
}

TEST_P(KeptConnectionTest, AFailingCheckClosesItsConnection) {
  auto t = checked_member();
  s_.set_behaviour(Behaviour::kKeepAlive, vigil::testing::http_response(500, "[-]etcd failed"));
  const auto failed = check(t);
  EXPECT_EQ(failed.outcome, Outcome::kBadStatus);
  EXPECT_TRUE(failed.reused_connection);
  s_.set_behaviour(Behaviour::kKeepAlive, ok_response());
  const auto r = check(t);
  EXPECT_TRUE(r.ok()) << r.detail;
  EXPECT_FALSE(r.reused_connection);
  EXPECT_EQ(s_.accepted(), 2);
}

TEST_P(KeptConnectionTest, AConnectionTheMemberClosedIsNotUsed) {
  auto t = checked_member();
  s_.close_open_connections();  // on loopback the FIN is in before close() returns
  const auto r = check(t);
  EXPECT_TRUE(r.ok()) << r.detail;
  EXPECT_FALSE(r.reused_connection);
  EXPECT_EQ(s_.accepted(), 2);
  EXPECT_EQ(s_.requests().size(), 2u);  // nothing was sent on the closed one
}

TEST_P(KeptConnectionTest, AnAnswerNobodyAskedForIsNotTakenForTheNextOne) {
  auto t = checked_member();
  s_.send_on_open_connections(vigil::testing::http_response(408, "idle"));
  settle([&] { return s_.unasked_sent() == 1; });
  ASSERT_EQ(s_.unasked_sent(), 1);
  const auto r = check(t);
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;
  EXPECT_EQ(r.http_code, 200);
  EXPECT_FALSE(r.reused_connection);
  EXPECT_EQ(s_.accepted(), 2);
}

TEST_P(KeptConnectionTest, AConnectionClosedAtTheRequestIsRetriedOnANewOne) {
  auto t = checked_member();
  s_.drop_next_requests(1);  // the kept connection looks fine, and closes when used
  const auto r = check(t);
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;
  EXPECT_FALSE(r.reused_connection);
  EXPECT_EQ(s_.accepted(), 2);
  EXPECT_EQ(s_.requests().size(), 3u);
}

TEST_P(KeptConnectionTest, AMemberThatClosesEveryConnectionStillFails) {
  auto t = checked_member();
  s_.drop_next_requests(2);  // the retry on a new connection is dropped too: one retry only
  const auto r = check(t);
  EXPECT_EQ(r.outcome, Outcome::kBadResponse) << r.detail;
  EXPECT_EQ(s_.accepted(), 2);
}

TEST_P(KeptConnectionTest, ACheckInFlightAtADropDoesNotKeepItsConnection) {
  auto t = checked_member();
  const auto during = check(t, [&] { t->kept->drop(); });  // a failed connect, meanwhile
  EXPECT_TRUE(during.ok()) << during.detail;
  EXPECT_TRUE(during.reused_connection);
  const auto r = check(t);
  EXPECT_TRUE(r.ok()) << r.detail;
  EXPECT_FALSE(r.reused_connection);
  EXPECT_EQ(s_.accepted(), 2);
}

TEST_P(KeptConnectionTest, AnAnswerThatEndsTheConnectionIsNotKept) {
  auto t = make_target(s_.port());
  for (const std::string& answer :
       {std::string("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"),
        std::string("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"),
        std::string("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA")}) {
    s_.set_behaviour(Behaviour::kKeepAlive, answer);
    const int before = s_.accepted();
    ASSERT_TRUE(check(t).ok()) << answer;
    const auto r = check(t);
    EXPECT_TRUE(r.ok()) << answer << ": " << r.detail;
    EXPECT_FALSE(r.reused_connection) << answer;
    EXPECT_EQ(s_.accepted(), before + 2) << answer;
  }
}

TEST_P(KeptConnectionTest, ANameIsResolvedAndItsKeptConnectionServesWhileItGoesThere) {
  auto t = make_target(s_.port());
  t->address = "localhost";
  ASSERT_TRUE(check(t).ok());
  const auto r = check(t);
  EXPECT_TRUE(r.ok()) << r.detail;
  EXPECT_TRUE(r.reused_connection);
  EXPECT_EQ(s_.accepted(), 1);
}

TEST_P(KeptConnectionTest, AKeptConnectionToAnAddressTheNameLeftIsNotUsed) {
  TestServer before(io_, {.tls = GetParam()});
  TestServer after(io_, {.tls = GetParam()});
  before.set_behaviour(Behaviour::kKeepAlive, ok_response());
  after.set_behaviour(Behaviour::kKeepAlive, ok_response());
  auto first = make_target(before.port());
  ASSERT_TRUE(check(first).ok());
  // The same member, its name now resolving elsewhere (here: another port, as DNS can't be
  // changed from a test): its kept connection goes to an address the name no longer has.
  auto moved = std::make_shared<ProbeTarget>(*first);
  moved->address = "localhost";
  moved->port = after.port();
  const auto r = check(moved);
  EXPECT_TRUE(r.ok()) << r.detail;
  EXPECT_FALSE(r.reused_connection);
  EXPECT_EQ(after.accepted(), 1);
  EXPECT_EQ(before.requests().size(), 1u);
}

TEST_P(KeptConnectionTest, WithReuseOffEveryCheckConnectsAndSaysClose) {
  auto t = make_target(s_.port(), /*reuse=*/false);
  ASSERT_TRUE(check(t).ok());
  const auto r = check(t);
  EXPECT_TRUE(r.ok()) << r.detail;
  EXPECT_FALSE(r.reused_connection);
  EXPECT_EQ(s_.accepted(), 2);
  EXPECT_THAT(s_.requests().front(), HasSubstr("\r\nConnection: close\r\n"));
}

TEST(KeptConnectionMaxAge, MembersGetDifferentPeriodsOfAtMostAMinute) {
  std::mt19937_64 rng(7);
  std::set<Duration> seen;
  for (int i = 0; i < 100; ++i) {
    const Duration d = draw_max_age(rng);
    EXPECT_LE(d, KeptConnection::kMaxAge);
    EXPECT_GE(d, KeptConnection::kMaxAge * 4 / 5);
    seen.insert(d);
  }
  EXPECT_GT(seen.size(), 50u);  // spread, not one value
}

TEST(KeptConnectionMaxAge, AMonitorsLongerPeriodIsDrawnFromTheSameFifth) {
  std::mt19937_64 rng(7);
  const Duration period = std::chrono::seconds(90);  // the node-local preset's
  for (int i = 0; i < 100; ++i) {
    const Duration d = draw_max_age(rng, period);
    EXPECT_LE(d, period);
    EXPECT_GE(d, period * 4 / 5);
  }
}

INSTANTIATE_TEST_SUITE_P(Protocols, KeptConnectionTest,
                         ::testing::Values(TlsVersion::kNone, TlsVersion::kTls12,
                                           TlsVersion::kTls13),
                         [](const auto& info) {
                           switch (info.param) {
                             case TlsVersion::kTls12:
                               return "Https12";
                             case TlsVersion::kTls13:
                               return "Https13";
                             default:
                               return "Http";
                           }
                         });

}  // namespace
}  // namespace vigil::health
