#include "health/checker.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <functional>
#include <set>

#include "health/checker_fixture.h"
#include "health/test_tls_server.h"

namespace vigil::health {
namespace {

using namespace std::chrono_literals;
using model::Health;
using model::MonitorType;
using model::Outcome;
using testing::Behaviour;
using testing::TestServer;

TEST_F(CheckerTest, GoesDownAfterFallFailuresAndBackAfterRiseSuccesses) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kRespond, testing::http_response(200, "ok"));
  bool back_up = false;
  react_ = [&](const Event& e) {
    // Flip the server once the member settled each way; no check is in flight at this point.
    if (e.changed && e.health == Health::kUp && e.previous == Health::kUnchecked) {
      server.set_behaviour(Behaviour::kRespond, testing::http_response(500, "[-]etcd failed"));
    } else if (e.changed && e.health == Health::kDown) {
      server.set_behaviour(Behaviour::kRespond, testing::http_response(200, "ok"));
    } else if (e.changed && e.health == Health::kUp) {
      back_up = true;
    }
  };
  checker_.set_targets({http_target("m1", server.port())});
  ASSERT_TRUE(advance_until(0ms, 1));  // the first check is due at once
  // One check per step: the next one falls due within it, whether the interval or the fast one.
  for (int i = 0; i < 20 && !back_up; ++i)
    ASSERT_TRUE(advance_until(kNextCheck, events_.size() + 1));

  struct Step {
    Health health;
    bool changed;
    int successes;
    int failures;
  };
  // The first result decides; then unhealthy_threshold = 3 and healthy_threshold = 2.
  const std::vector<Step> expected = {
      {Health::kUp, true, 1, 0},   {Health::kUp, false, 0, 1},   {Health::kUp, false, 0, 2},
      {Health::kDown, true, 0, 3}, {Health::kDown, false, 1, 0}, {Health::kUp, true, 2, 0},
  };
  ASSERT_EQ(events_.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(events_[i].member_id, "m1");
    EXPECT_EQ(events_[i].health, expected[i].health) << "event " << i;
    EXPECT_EQ(events_[i].changed, expected[i].changed) << "event " << i;
    EXPECT_EQ(events_[i].successes, expected[i].successes) << "event " << i;
    EXPECT_EQ(events_[i].failures, expected[i].failures) << "event " << i;
  }
  EXPECT_EQ(events_[1].result.outcome, Outcome::kBadStatus);
  EXPECT_EQ(events_[1].result.http_code, 500);
  EXPECT_EQ(checker_.health("m1"), Health::kUp);
  EXPECT_EQ(checker_.health("unknown"), Health::kUnchecked);
}

TEST_F(CheckerTest, ASilentServerTimesOut) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kSilent);
  Target t = http_target("m1", server.port());
  t.monitor.timeout = 200ms;
  t.monitor.interval = 1h;
  const auto start = clock_.now();
  checker_.set_targets({t});
  timers_.advance(0ms);
  ASSERT_TRUE(vigil::testing::run_until(io_, [&] { return server.requests().size() == 1; }));
  timers_.advance(199ms);
  settle();
  EXPECT_TRUE(events_.empty()) << "not yet timed out";
  ASSERT_TRUE(advance_until(1ms, 1));
  const auto took = clock_.now() - start;
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(events_[0].result.outcome, Outcome::kTimeout);
  EXPECT_EQ(events_[0].result.detail, "no answer within 200ms");
  EXPECT_EQ(events_[0].health, Health::kDown);
  EXPECT_GE(took, 200ms);
  EXPECT_LT(took, 2s);
  EXPECT_EQ(server.requests().size(), 1u);
}

// Members checked alike share one monitor; a member whose monitor changed under the same id
// checks the new way while one that kept the old monitor goes on with it.
TEST_F(CheckerTest, AMonitorChangedUnderItsIdLeavesTheMembersOnTheOldOneAlone) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kSilent);
  Target old_way = http_target("m1", server.port());
  old_way.monitor.id = "hm";
  old_way.monitor.timeout = 200ms;
  old_way.monitor.interval = 1h;
  Target new_way = old_way;
  new_way.member_id = "m2";
  new_way.monitor.timeout = 500ms;
  checker_.change_targets({old_way}, {});
  checker_.change_targets({new_way}, {});
  timers_.advance(kSoon);  // both first checks, 100 µs apart, start in one wakeup
  ASSERT_TRUE(vigil::testing::run_until(io_, [&] { return server.requests().size() == 2; }));
  ASSERT_TRUE(advance_until(200ms, 1));
  EXPECT_EQ(events_[0].member_id, "m1");
  EXPECT_EQ(events_[0].result.detail, "no answer within 200ms");
  ASSERT_TRUE(advance_until(300ms, 2));
  EXPECT_EQ(events_[1].member_id, "m2");
  EXPECT_EQ(events_[1].result.detail, "no answer within 500ms");
}

TEST_F(CheckerTest, CheckNowRunsACheckAtOnce) {
  TestServer server(io_);
  Target t = http_target("m1", server.port());
  t.monitor.interval = 1h;
  t.monitor.fast_interval = 1h;
  react_ = [&](const Event&) {
    if (events_.size() == 1) checker_.check_now("m1");
  };
  checker_.set_targets({t});
  ASSERT_TRUE(advance_until(0ms, 1));
  EXPECT_TRUE(advance_until(kSoon, 2));
  EXPECT_EQ(events_.size(), 2u);
  EXPECT_EQ(server.accepted(), 2);
}

TEST_F(CheckerTest, ChecksShareAConnectionUntilCheckNowAsksForANewOne) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kKeepAlive, testing::http_response(200, "ok"));
  react_ = [&](const Event&) {
    if (events_.size() == 2) checker_.check_now("m1");  // as after a failed connect
  };
  checker_.set_targets({http_target("m1", server.port())});
  ASSERT_TRUE(advance_until(0ms, 1));
  ASSERT_TRUE(advance_until(kNextCheck, 2));
  ASSERT_TRUE(advance_until(kSoon, 3));
  ASSERT_EQ(events_.size(), 3u);
  EXPECT_FALSE(events_[0].result.reused_connection);
  EXPECT_TRUE(events_[1].result.reused_connection);
  EXPECT_FALSE(events_[2].result.reused_connection);
  EXPECT_EQ(server.accepted(), 2);
}

TEST_F(CheckerTest, SetTargetsKeepsUnchangedMembersAndRestartsChangedOnes) {
  TestServer server(io_);
  Target a = http_target("a", server.port());
  Target b = http_target("b", server.port());
  a.monitor.interval = b.monitor.interval = 1h;
  a.tag = 1;
  b.tag = 2;
  checker_.set_targets({a, b});
  ASSERT_TRUE(advance_until(kSoon, 2));
  ASSERT_EQ(events_.size(), 2u);
  ASSERT_EQ(checker_.health("a"), Health::kUp);

  // a only moved in its file: kept, not checked again. b's path changed: checked at once.
  // c is new. The daemon would drop a member the same way; here "b" stays, "c" comes.
  a.monitor.where = {.file = "other.yaml", .line = 42};
  b.monitor.path = "/livez";
  Target c = http_target("c", server.port());
  c.monitor.interval = 1h;
  a.tag = 11;  // the caller renumbered its members
  b.tag = 12;
  c.tag = 13;
  events_.clear();
  checker_.set_targets({a, b, c});
  EXPECT_EQ(checker_.health("a"), Health::kUp);
  EXPECT_EQ(checker_.health("b"), Health::kUnchecked);
  ASSERT_TRUE(advance_until(kSoon, 2));
  ASSERT_EQ(events_.size(), 2u);
  EXPECT_EQ(events_[0].member_id, "b");
  EXPECT_EQ(events_[0].tag, 12u);
  EXPECT_EQ(events_[1].member_id, "c");
  EXPECT_EQ(events_[1].tag, 13u);
  EXPECT_EQ(server.accepted(), 4);
  EXPECT_EQ(server.requests().back().substr(0, 20), "GET /readyz?verbose ");

  // a's check now carries its new number, though a itself was kept.
  events_.clear();
  checker_.check_now("a");
  ASSERT_TRUE(advance_until(kSoon, 1));
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(events_[0].member_id, "a");
  EXPECT_EQ(events_[0].tag, 11u);
}

TEST_F(CheckerTest, ChangeTargetsLeavesTheMembersItDoesNotNameAsTheyAre) {
  TestServer server(io_);
  Target a = http_target("a", server.port());
  Target b = http_target("b", server.port());
  a.tag = 1;
  b.tag = 2;
  checker_.set_targets({a, b});
  ASSERT_TRUE(advance_until(kSoon, 2));
  ASSERT_EQ(checker_.health("a"), Health::kUp);

  // b's pool was made anew (b is unset and set again, unchanged), c is new, "gone" was never
  // checked, and a is not named at all: only c's first check is due now.
  Target c = http_target("c", server.port());
  c.monitor.interval = 1h;
  c.tag = 3;
  b.tag = 22;
  events_.clear();
  checker_.change_targets({b, c}, {"b", "gone"});
  EXPECT_EQ(checker_.health("a"), Health::kUp);
  EXPECT_EQ(checker_.health("b"), Health::kUp);
  ASSERT_TRUE(advance_until(kSoon, 1));
  settle();
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(events_[0].member_id, "c");
  EXPECT_EQ(events_[0].tag, 3u);

  // a and b check on their old schedule, their thresholds carried on (a second success: a
  // restarted member would count its first again), b with its new number.
  events_.clear();
  ASSERT_TRUE(advance_until(kNextCheck, 2));
  settle();
  ASSERT_EQ(events_.size(), 2u);
  for (const Event& e : events_) {
    EXPECT_EQ(e.successes, 2) << e.member_id;
    EXPECT_EQ(e.tag, e.member_id == "a" ? 1u : 22u) << e.member_id;
  }

  checker_.change_targets({}, {"a"});
  EXPECT_EQ(checker_.health("a"), Health::kUnchecked);
  EXPECT_EQ(checker_.health("b"), Health::kUp);
}

TEST_F(CheckerTest, RemovedMemberStopsAndItsRunningProbeIsCancelled) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kSilent);
  Target t = http_target("m1", server.port());
  t.monitor.timeout = 300ms;
  checker_.set_targets({t});
  // Remove it while its first check hangs; no event may follow, not even past its timeout.
  timers_.advance(0ms);
  ASSERT_TRUE(vigil::testing::run_until(io_, [&] { return server.requests().size() == 1; }));
  checker_.set_targets({});
  EXPECT_EQ(checker_.health("m1"), Health::kUnchecked);
  timers_.advance(1s);
  settle();
  EXPECT_TRUE(events_.empty());
  EXPECT_EQ(server.accepted(), 1);
}

TEST_F(CheckerTest, StopFromTheCallbackEndsEverything) {
  TestServer server(io_);
  Target a = http_target("a", server.port());
  Target b = http_target("b", server.port());
  react_ = [&](const Event&) { checker_.stop(); };
  checker_.set_targets({a, b});
  ASSERT_TRUE(advance_until(kSoon, 1));  // both checks start; the first result stops
  timers_.advance(1s);                   // past the other's timeout and both intervals
  settle();
  EXPECT_EQ(events_.size(), 1u) << "the other probe was cancelled";
  checker_.set_targets({a});  // ignored once stopped
  timers_.advance(1s);
  settle();
  EXPECT_EQ(events_.size(), 1u);
}

TEST_F(CheckerTest, DestroyingTheCheckerWithProbesRunningIsSafe) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kSilent);
  int calls = 0;
  {
    HealthChecker local(io_, clock_, timers_, [&](const Event&) { ++calls; });
    local.set_targets({http_target("m1", server.port())});
    timers_.advance(0ms);
    ASSERT_TRUE(vigil::testing::run_until(io_, [&] { return server.requests().size() == 1; }));
  }
  timers_.advance(2s);  // past its timeout and its next checks
  settle();
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace vigil::health
