#include "health/checker.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <functional>
#include <set>

#include "health/test_tls_server.h"

namespace vigil::health {
namespace {

using namespace std::chrono_literals;
using model::Health;
using model::MonitorType;
using model::Outcome;
using testing::Behaviour;
using testing::TestServer;

// These run on real time with short intervals, each run bounded; nothing sleeps.
class CheckerTest : public ::testing::Test {
 protected:
  Target http_target(const std::string& id, uint16_t port) {
    Target t{.member_id = id, .address = "127.0.0.1", .port = port};
    t.monitor.type = MonitorType::kHttp;
    t.monitor.interval = 50ms;
    t.monitor.fast_interval = 20ms;
    t.monitor.timeout = 1s;
    t.monitor.healthy_threshold = 2;
    t.monitor.unhealthy_threshold = 3;
    return t;
  }

  // Runs until the callback stops the io_context, at most `limit`.
  void run(Duration limit = 10s) {
    io_.restart();
    io_.run_for(limit);
  }

  boost::asio::io_context io_;
  SteadyClock clock_;
  std::vector<Event> events_;
  std::set<std::string, std::less<>> ids_;   // events_ outlive their member: the ids they name
  std::function<void(const Event&)> react_;  // what the test does on each event
  HealthChecker checker_{io_, clock_,
                         [this](const Event& e) {
                           Event copy = e;
                           copy.member_id = *ids_.emplace(e.member_id).first;
                           events_.push_back(copy);
                           if (react_) react_(e);
                         },
                         7};
};

TEST_F(CheckerTest, GoesDownAfterFallFailuresAndBackAfterRiseSuccesses) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kRespond, testing::http_response(200, "ok"));
  react_ = [&](const Event& e) {
    // Flip the server once the member settled each way; no check is in flight at this point.
    if (e.changed && e.health == Health::kUp && e.previous == Health::kUnchecked) {
      server.set_behaviour(Behaviour::kRespond, testing::http_response(500, "[-]etcd failed"));
    } else if (e.changed && e.health == Health::kDown) {
      server.set_behaviour(Behaviour::kRespond, testing::http_response(200, "ok"));
    } else if (e.changed && e.health == Health::kUp) {
      io_.stop();
    }
  };
  checker_.set_targets({http_target("m1", server.port())});
  run();

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
  react_ = [&](const Event&) { io_.stop(); };
  const auto start = clock_.now();
  checker_.set_targets({t});
  run();
  const auto took = clock_.now() - start;
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(events_[0].result.outcome, Outcome::kTimeout);
  EXPECT_EQ(events_[0].result.detail, "no answer within 200ms");
  EXPECT_EQ(events_[0].health, Health::kDown);
  EXPECT_GE(took, 200ms);
  EXPECT_LT(took, 2s);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(CheckerTest, CheckNowRunsACheckAtOnce) {
  TestServer server(io_);
  Target t = http_target("m1", server.port());
  t.monitor.interval = 1h;
  t.monitor.fast_interval = 1h;
  react_ = [&](const Event&) {
    if (events_.size() == 1) {
      checker_.check_now("m1");
    } else {
      io_.stop();
    }
  };
  checker_.set_targets({t});
  run(5s);
  EXPECT_EQ(events_.size(), 2u);
  EXPECT_EQ(server.accepted(), 2);
}

TEST_F(CheckerTest, ChecksShareAConnectionUntilCheckNowAsksForANewOne) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kKeepAlive, testing::http_response(200, "ok"));
  react_ = [&](const Event&) {
    if (events_.size() == 2) checker_.check_now("m1");  // as after a failed connect
    if (events_.size() == 3) io_.stop();
  };
  checker_.set_targets({http_target("m1", server.port())});
  run(5s);
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
  react_ = [&](const Event&) {
    if (events_.size() == 2) io_.stop();
  };
  checker_.set_targets({a, b});
  run(5s);
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
  react_ = [&](const Event&) {
    if (events_.size() == 2) io_.stop();
  };
  checker_.set_targets({a, b, c});
  EXPECT_EQ(checker_.health("a"), Health::kUp);
  EXPECT_EQ(checker_.health("b"), Health::kUnchecked);
  run(5s);
  ASSERT_EQ(events_.size(), 2u);
  EXPECT_EQ(events_[0].member_id, "b");
  EXPECT_EQ(events_[0].tag, 12u);
  EXPECT_EQ(events_[1].member_id, "c");
  EXPECT_EQ(events_[1].tag, 13u);
  EXPECT_EQ(server.accepted(), 4);
  EXPECT_EQ(server.requests().back().substr(0, 20), "GET /readyz?verbose ");

  // a's check now carries its new number, though a itself was kept.
  events_.clear();
  react_ = [&](const Event&) { io_.stop(); };
  checker_.check_now("a");
  run(5s);
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(events_[0].member_id, "a");
  EXPECT_EQ(events_[0].tag, 11u);
}

TEST_F(CheckerTest, RemovedMemberStopsAndItsRunningProbeIsCancelled) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kSilent);
  Target t = http_target("m1", server.port());
  t.monitor.timeout = 300ms;
  checker_.set_targets({t});
  // Remove it while its first check hangs; no event may follow.
  boost::asio::post(io_, [] {});
  io_.run_for(100ms);
  ASSERT_EQ(server.requests().size(), 1u);
  checker_.set_targets({});
  EXPECT_EQ(checker_.health("m1"), Health::kUnchecked);
  io_.restart();
  io_.run_for(600ms);
  EXPECT_TRUE(events_.empty());
  EXPECT_EQ(server.accepted(), 1);
}

TEST_F(CheckerTest, StopFromTheCallbackEndsEverything) {
  TestServer server(io_);
  Target a = http_target("a", server.port());
  Target b = http_target("b", server.port());
  react_ = [&](const Event&) { checker_.stop(); };
  checker_.set_targets({a, b});
  io_.run_for(500ms);
  EXPECT_EQ(events_.size(), 1u) << "the other probe was cancelled";
  checker_.set_targets({a});  // ignored once stopped
  io_.restart();
  io_.run_for(200ms);
  EXPECT_EQ(events_.size(), 1u);
}

TEST_F(CheckerTest, DestroyingTheCheckerWithProbesRunningIsSafe) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kSilent);
  int calls = 0;
  {
    HealthChecker local(io_, clock_, [&](const Event&) { ++calls; });
    local.set_targets({http_target("m1", server.port())});
    io_.run_for(100ms);
  }
  io_.restart();
  io_.run_for(300ms);
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace vigil::health
