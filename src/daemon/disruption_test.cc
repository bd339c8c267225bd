// Attributing the data plane's disruption counts to a member's transitions (disruption.h), and
// what pool_state's transition lines say of them. The time is passed in; nothing sleeps.
#include "daemon/disruption.h"

#include <gtest/gtest.h>

#include "daemon/pool_state.h"
#include "net/socket.h"

namespace vigil::daemon {
namespace {

using namespace std::chrono_literals;
using model::OperatingStatus;

const model::WallTime kWall = model::WallTime{} + 2h;

// Moves the member to `status` at `at`, as update_member() does.
void go(MemberRuntime& m, OperatingStatus status, model::WallTime at = kWall) {
  const OperatingStatus before = m.status;
  m.status = status;
  note_transition(m, before, at);
}

MemberRuntime online() {
  MemberRuntime m;
  m.status = OperatingStatus::kOnline;
  return m;
}

TEST(Disruption, NoneBeforeTheFirstTimeOutOfService) {
  MemberRuntime m = online();
  m.stats->retries += 4;  // a blip that took no transition
  EXPECT_EQ(last_disruption(m), std::nullopt);
  EXPECT_EQ(disruption_counts(m), model::DisruptionCounts{});
}

TEST(Disruption, ATimeOutCountsFromWhenItWasLastInServiceUntilItIsBack) {
  MemberRuntime m = online();
  m.stats->retries += 1;  // before the first time out: a blip that is its own
  go(m, OperatingStatus::kError);
  m.stats->sessions_closed += 3;  // the close, after the transition
  m.stats->replays += 2;
  auto d = last_disruption(m);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->status, OperatingStatus::kError);
  EXPECT_EQ(d->at, kWall);
  EXPECT_TRUE(d->ongoing);
  EXPECT_EQ(d->counts, (model::DisruptionCounts{.sessions_closed = 3, .retries = 1, .replays = 2}))
      << "what came since it was added, the close included";

  go(m, OperatingStatus::kOnline, kWall + 1min);
  m.stats->hedges += 5;  // after it is back: its next time out's
  d = last_disruption(m);
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->ongoing);
  EXPECT_EQ(d->at, kWall) << "the transition that took it out";
  EXPECT_EQ(d->counts, (model::DisruptionCounts{.sessions_closed = 3, .retries = 1, .replays = 2}));

  go(m, OperatingStatus::kDraining, kWall + 2min);
  m.stats->failed_sessions += 1;
  d = last_disruption(m);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->status, OperatingStatus::kDraining);
  EXPECT_EQ(d->counts, (model::DisruptionCounts{.hedges = 5, .failed_sessions = 1}));
}

TEST(Disruption, DrainingThenDownIsOneTimeOut) {
  MemberRuntime m = online();
  go(m, OperatingStatus::kDraining, kWall);
  m.stats->retries += 1;
  go(m, OperatingStatus::kError, kWall + 30s);
  m.stats->sessions_closed += 2;
  const auto d = last_disruption(m);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->status, OperatingStatus::kError) << "the status it is out for now";
  EXPECT_EQ(d->at, kWall) << "since it first left service";
  EXPECT_EQ(d->counts, (model::DisruptionCounts{.sessions_closed = 2, .retries = 1}));
}

TEST(Disruption, AMemberThatStartsDownCountsFromItsFirstCheck) {
  MemberRuntime m;  // OFFLINE until its first check
  go(m, OperatingStatus::kError, kWall);
  m.stats->failed_sessions += 1;
  ASSERT_TRUE(last_disruption(m));
  EXPECT_EQ(last_disruption(m)->counts.failed_sessions, 1u);
  go(m, OperatingStatus::kOnline, kWall + 10s);
  EXPECT_FALSE(last_disruption(m)->ongoing);
}

// Through pool_state: the line of a transition that closes no session carries the counts.
TEST(Disruption, TheTransitionLineCarriesTheCountsSoFar) {
  model::Pool config{.name = "masters"};
  config.health_monitor = model::HealthMonitor{{.type = model::MonitorType::kHttps}};
  PoolRuntime pool{.id = "pool-id", .config = config};
  for (const char* name : {"a", "b"}) {
    const model::Member mc{.id = name, .name = name, .address = "10.0.0.1", .port = 6443};
    pool.members.push_back(
        {.id = mc.id, .config = mc, .address = *net::SocketAddress::from_ip(mc.address, 6443)});
  }
  const PoolContext at{.now = TimePoint{} + 1h, .wall = kWall, .next_version = 1};
  recompute(pool, at, /*fresh=*/true);
  const health::Event up{.result = {.outcome = model::Outcome::kOk, .http_code = 200},
                         .health = model::Health::kUp,
                         .previous = model::Health::kUnchecked,
                         .changed = true,
                         .successes = 1};
  apply_check(pool, 0, up, at);
  apply_check(pool, 1, up, at);
  pool.members[0].stats->retries += 2;  // the workers moved two connects away from it
  pool.members[0].stats->replays += 1;
  const PoolChanges changes =
      apply_override(pool, 0, model::AdminOverride{.state = model::AdminState::kDrain}, "CLI", at);
  ASSERT_EQ(changes.transitions.size(), 1u);
  EXPECT_TRUE(changes.transitions[0].line.ends_with(
      "; 0 sessions closed, 2 retried, 0 hedged, 1 replayed, 0 failed"))
      << changes.transitions[0].line;

  const PoolChanges maint =
      apply_override(pool, 1, model::AdminOverride{.state = model::AdminState::kMaint}, "CLI", at);
  ASSERT_EQ(maint.transitions.size(), 1u);
  EXPECT_TRUE(maint.transitions[0].line.ends_with("; closing its sessions"))
      << maint.transitions[0].line;
}

}  // namespace
}  // namespace vigil::daemon
