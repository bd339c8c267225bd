#include "daemon/pool_state.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "daemon/rotation.h"
#include "net/socket.h"

namespace vigil::daemon {
namespace {

using namespace std::chrono_literals;
using model::Health;
using model::OperatingStatus;
using model::Outcome;

const TimePoint kStart = TimePoint{} + 1h;
const model::WallTime kWall = model::WallTime{} + 2h;

PoolContext at(TimePoint now = kStart, uint64_t next_version = 1) {
  return {.now = now, .wall = kWall, .next_version = next_version};
}

model::Member member(const std::string& name, const std::string& address) {
  return {.id = "id-" + name, .name = name, .address = address, .port = 6443};
}

model::Member backup(model::Member m) {
  m.backup = true;
  return m;
}

model::Pool monitored(model::Pool p = {.name = "masters"}) {
  p.health_monitor = model::HealthMonitor{{.type = model::MonitorType::kHttps}};
  return p;
}

// A pool as apply() makes it: members resolved, statuses computed, first snapshot taken.
PoolRuntime pool_of(model::Pool config, const std::vector<model::Member>& members) {
  PoolRuntime pool{.id = "pool-id", .config = std::move(config)};
  for (const model::Member& m : members) {
    pool.members.push_back(
        {.id = m.id, .config = m, .address = *net::SocketAddress::from_ip(m.address, m.port)});
  }
  recompute(pool, at(), /*fresh=*/true);
  return pool;
}

health::Event result(model::CheckResult r, Health previous, Health health, int successes = 0,
                     int failures = 0) {
  return {.member_id = "",
          .result = std::move(r),
          .health = health,
          .previous = previous,
          .changed = previous != health,
          .successes = successes,
          .failures = failures};
}
health::Event pass(Health previous = Health::kUp, int successes = 2) {
  return result({.outcome = Outcome::kOk, .http_code = 200}, previous, Health::kUp, successes);
}
health::Event http_500(const std::string& failed_check, Health previous, Health health,
                       int failures) {
  return result({.outcome = Outcome::kBadStatus, .http_code = 500, .failed_checks = {failed_check}},
                previous, health, 0, failures);
}

// Every member passes its first check.
void bring_up(PoolRuntime& pool) {
  for (size_t i = 0; i < pool.members.size(); ++i) {
    apply_check(pool, i, pass(Health::kUnchecked, 1), at());
  }
}

std::vector<std::string> candidates(const PoolRuntime& pool) {
  std::vector<std::string> out;
  for (const proxy::Backend& b : pool.snapshot->candidates) out.push_back(b.name);
  return out;
}

std::vector<size_t> closed(const PoolChanges& changes, CloseReason reason) {
  std::vector<size_t> out;
  for (const SessionClose& c : changes.closes) {
    if (c.reason == reason) out.push_back(c.member);
  }
  return out;
}

TEST(PoolState, AFreshPoolHasASnapshotButNoTransitions) {
  PoolRuntime pool{.id = "p", .config = monitored()};
  pool.members.push_back({.id = "a",
                          .config = member("a", "10.0.0.1"),
                          .address = *net::SocketAddress::from_ip("10.0.0.1", 6443)});
  const PoolChanges changes = recompute(pool, at(kStart, 7), /*fresh=*/true);
  EXPECT_TRUE(changes.transitions.empty());
  ASSERT_NE(changes.snapshot, nullptr);
  EXPECT_EQ(changes.snapshot, pool.snapshot);
  EXPECT_EQ(changes.snapshot->version, 7u);
  EXPECT_EQ(pool.members[0].status, OperatingStatus::kOffline) << "not checked yet";
  EXPECT_TRUE(pool.members[0].in_rotation) << "nothing checked yet: route to all";
}

TEST(PoolState, ATransitionSaysWhatChangedAndWhatIsLeft) {
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
  bring_up(pool);
  const PoolChanges changes = apply_check(
      pool, 0, result({.outcome = Outcome::kRefused}, Health::kUp, Health::kDown, 0, 3), at());
  ASSERT_EQ(changes.transitions.size(), 1u);
  const MemberTransition& t = changes.transitions[0];
  EXPECT_EQ(t.member, 0u);
  EXPECT_EQ(t.before, OperatingStatus::kOnline);
  EXPECT_EQ(t.after, OperatingStatus::kError);
  EXPECT_EQ(t.line,
            "pool masters member a 10.0.0.1:6443 DOWN: connection refused (3/3 failures, check "
            "0ms) (was ONLINE); 1 of 2 members up; closing its sessions");
  EXPECT_EQ(pool.members[0].state_since, kWall);
  EXPECT_EQ(pool.status, OperatingStatus::kDegraded);
  const uint64_t before = pool.members[1].checks.transitions;
  EXPECT_EQ(pool.members[0].checks.transitions, before + 1) << "counted once per change";
}

TEST(PoolState, ResultsRecordedTogetherAreRecomputedOnceEachLineCountingAsTheWalkLeftIt) {
  PoolRuntime pool = pool_of(
      monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2"), member("c", "10.0.0.3")});
  bring_up(pool);
  EXPECT_FALSE(record_check_of(pool, 2, pass(), at()).recompute) << "a result like the last";
  const health::Event refused =
      result({.outcome = Outcome::kRefused}, Health::kUp, Health::kDown, 0, 3);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(record_check_of(pool, i, refused, at()).recompute);
    EXPECT_EQ(pool.members[i].status, OperatingStatus::kOnline) << "recorded, not recomputed";
  }
  const PoolChanges changes = recompute(pool, at());
  ASSERT_EQ(changes.transitions.size(), 2u);
  EXPECT_TRUE(changes.transitions[0].line.ends_with("; 2 of 3 members up; closing its sessions"))
      << changes.transitions[0].line;
  EXPECT_TRUE(changes.transitions[1].line.ends_with("; 1 of 3 members up; closing its sessions"))
      << changes.transitions[1].line;
  EXPECT_EQ(closed(changes, CloseReason::kDown), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(candidates(pool), (std::vector<std::string>{"c"}));
}

TEST(PoolState, TheHistoryCountsFlapsAndDowntimeButNotTheFirstVerdict) {
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
  bring_up(pool);
  const auto wall = [](auto after) {
    return PoolContext{.now = kStart, .wall = kWall + after, .next_version = 1};
  };
  apply_check(pool, 0, result({.outcome = Outcome::kRefused}, Health::kUp, Health::kDown, 0, 3),
              wall(10min));
  apply_check(pool, 0, pass(Health::kDown), wall(12min));
  const model::HourView hour =
      model::last_hour(pool.members[0].history, pool.members[0].health_status,
                       pool.members[0].health_since, kWall + 20min);
  EXPECT_EQ(hour.transitions, 2) << "down and up again; coming up at start is no flap";
  EXPECT_EQ(hour.down_ms, 2 * 60'000);
  EXPECT_EQ(model::last_hour(pool.members[1].history, pool.members[1].health_status,
                             pool.members[1].health_since, kWall + 20min)
                .transitions,
            0);
}

// A drained (or maintained) master rebooting: its status stays DRAINING (OFFLINE) from the
// operator's change on, but its health's down period is downtime all the same, and its health
// status carries the time its checks last changed their verdict, not the override's.
TEST(PoolState, AMemberDownWhileOverriddenCountsItsDowntimeAndHealthsAge) {
  for (const model::AdminState state : {model::AdminState::kDrain, model::AdminState::kMaint}) {
    PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
    bring_up(pool);
    const auto wall = [](auto after) {
      return PoolContext{.now = kStart, .wall = kWall + after, .next_version = 1};
    };
    apply_override(pool, 0, model::AdminOverride{.state = state, .by = "CLI"}, "CLI", wall(1min));
    const MemberRuntime& m = pool.members[0];
    const OperatingStatus shown = m.status;
    EXPECT_EQ(m.health_status, OperatingStatus::kOnline);
    EXPECT_EQ(m.health_since, kWall) << "up since its first check, drained or not";
    apply_check(pool, 0, result({.outcome = Outcome::kRefused}, Health::kUp, Health::kDown, 0, 3),
                wall(10min));
    EXPECT_EQ(m.status, shown) << "the override still shows";
    EXPECT_EQ(m.state_since, kWall + 1min);
    EXPECT_EQ(m.health_status, OperatingStatus::kError);
    EXPECT_EQ(m.health_since, kWall + 10min);
    EXPECT_EQ(model::last_hour(m.history, m.health_status, m.health_since, kWall + 11min).down_ms,
              60'000)
        << "the running down period";
    apply_check(pool, 0, pass(Health::kDown), wall(13min));
    EXPECT_EQ(m.health_status, OperatingStatus::kOnline);
    EXPECT_EQ(m.health_since, kWall + 13min);
    const model::HourView hour =
        model::last_hour(m.history, m.health_status, m.health_since, kWall + 20min);
    EXPECT_EQ(hour.down_ms, 3 * 60'000) << model::to_string(state);
    EXPECT_EQ(hour.transitions, 1) << "the override's change only: the status did not flap";
  }
}

TEST(PoolState, GoingDownClosesSessionsOnlyWhenTheCheckGotNoAnswer) {
  struct Case {
    const char* description;
    model::CheckResult check;
    bool shutdown_sessions_on_down;
    bool expect_close;
  };
  const Case cases[] = {
      {.description = "refused",
       .check = {.outcome = Outcome::kRefused},
       .shutdown_sessions_on_down = true,
       .expect_close = true},
      {.description = "timeout",
       .check = {.outcome = Outcome::kTimeout},
       .shutdown_sessions_on_down = true,
       .expect_close = true},
      {.description = "HTTP 500: alive and serving, its sessions finish",
       .check = {.outcome = Outcome::kBadStatus, .http_code = 500},
       .shutdown_sessions_on_down = true,
       .expect_close = false},
      {.description = "the pool keeps the sessions of down members",
       .check = {.outcome = Outcome::kTimeout},
       .shutdown_sessions_on_down = false,
       .expect_close = false},
  };
  for (const Case& c : cases) {
    model::Pool config = monitored();
    config.shutdown_sessions_on_down = c.shutdown_sessions_on_down;
    PoolRuntime pool = pool_of(config, {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
    bring_up(pool);
    const PoolChanges changes =
        apply_check(pool, 0, result(c.check, Health::kUp, Health::kDown, 0, 3), at());
    EXPECT_EQ(pool.members[0].status, OperatingStatus::kError) << c.description;
    EXPECT_EQ(closed(changes, CloseReason::kDown),
              c.expect_close ? std::vector<size_t>{0} : std::vector<size_t>{})
        << c.description;
    EXPECT_EQ(candidates(pool), std::vector<std::string>{"b"}) << c.description;
  }
}

TEST(PoolState, ASilentSuspectWhoseCheckGetsNoAnswerLosesItsSessionsFirst) {
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
  bring_up(pool);
  ASSERT_TRUE(apply_connect_failure(pool, 0, /*silent=*/true, at()).has_value());
  const PoolChanges changes = apply_check(
      pool, 0, result({.outcome = Outcome::kTimeout}, Health::kUp, Health::kDown, 0, 3), at());
  ASSERT_EQ(changes.closes.size(), 2u);
  EXPECT_EQ(changes.closes[0].reason, CloseReason::kSilent) << "decided by the check itself";
  EXPECT_EQ(changes.closes[1].reason, CloseReason::kDown);
}

TEST(PoolState, AnnouncedShutdownDrainsUntilTheMemberStopsAnswering) {
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
  bring_up(pool);
  struct Step {
    const char* description;
    health::Event event;
    OperatingStatus expected;
    std::vector<size_t> expect_closed;
  };
  const Step steps[] = {
      {.description = "first [-]shutdown answer: out of rotation at once",
       .event = http_500("[-]shutdown failed", Health::kUp, Health::kUp, 1),
       .expected = OperatingStatus::kDraining},
      {.description = "down by the thresholds, still announcing its shutdown",
       .event = http_500("[-]shutdown failed", Health::kUp, Health::kDown, 3),
       .expected = OperatingStatus::kDraining},
      {.description = "it stops answering: its remaining sessions are dead",
       .event = result({.outcome = Outcome::kRefused}, Health::kDown, Health::kDown, 0, 4),
       .expected = OperatingStatus::kError,
       .expect_closed = {0}},
  };
  for (const Step& s : steps) {
    const PoolChanges changes = apply_check(pool, 0, s.event, at());
    EXPECT_EQ(pool.members[0].status, s.expected) << s.description;
    EXPECT_FALSE(pool.members[0].in_rotation) << s.description;
    EXPECT_EQ(closed(changes, CloseReason::kDown), s.expect_closed) << s.description;
  }
}

TEST(PoolState, AnyOtherFailingReadyzDrainsAtOnceThenGoesDownByTheThresholds) {
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
  bring_up(pool);
  PoolChanges changes =
      apply_check(pool, 0, http_500("[-]etcd failed", Health::kUp, Health::kUp, 1), at(kStart, 10));
  EXPECT_EQ(pool.members[0].status, OperatingStatus::kDraining);
  EXPECT_TRUE(pool.members[0].draining);
  ASSERT_NE(changes.snapshot, nullptr) << "the rotation changed before the health did";
  EXPECT_EQ(candidates(pool), std::vector<std::string>{"b"});

  changes = apply_check(pool, 0, http_500("[-]etcd failed", Health::kUp, Health::kUp, 2), at());
  EXPECT_TRUE(changes.transitions.empty());
  EXPECT_EQ(changes.snapshot, nullptr);

  changes = apply_check(pool, 0, http_500("[-]etcd failed", Health::kUp, Health::kDown, 3), at());
  EXPECT_EQ(pool.members[0].status, OperatingStatus::kError);
  EXPECT_FALSE(pool.members[0].draining);
  EXPECT_TRUE(changes.closes.empty()) << "it answered: its sessions finish";
  EXPECT_EQ(changes.snapshot, nullptr) << "out of rotation already";
}

TEST(PoolState, FailsOpenWhenNothingIsHealthyAndStopsWhenSomethingIs) {
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
  bring_up(pool);
  // Failing, but answering: both still take connections.
  EXPECT_TRUE(apply_check(pool, 0, http_500("[-]etcd failed", Health::kUp, Health::kDown, 3), at())
                  .events.empty());
  PoolChanges changes =
      apply_check(pool, 1, http_500("[-]log failed", Health::kUp, Health::kDown, 3), at());
  EXPECT_EQ(changes.events, std::vector<PoolEvent>{PoolEvent::kFailOpenStarted});
  EXPECT_EQ(changes.common_reason, "") << "they fail for different reasons";
  EXPECT_TRUE(pool.fail_open_active);
  EXPECT_EQ(pool.status, OperatingStatus::kError);
  EXPECT_EQ(candidates(pool), (std::vector<std::string>{"a", "b"}));

  changes = apply_check(pool, 1, pass(Health::kDown), at());
  EXPECT_EQ(changes.events, std::vector<PoolEvent>{PoolEvent::kFailOpenEnded});
  EXPECT_FALSE(pool.fail_open_active);
  EXPECT_EQ(candidates(pool), std::vector<std::string>{"b"});
}

// Common mode: every member fails its /readyz alike (an etcd blip). That is the cluster's
// problem: vigil keeps routing to the members that answer, and never to one that refuses or does
// not answer connections.
TEST(PoolState, FailingOpenLeavesOutMembersThatRefuseOrDoNotAnswer) {
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2"),
                                           member("c", "10.0.0.3"), member("d", "10.0.0.4")});
  bring_up(pool);
  apply_check(pool, 2, result({.outcome = Outcome::kRefused}, Health::kUp, Health::kDown, 0, 3),
              at());
  apply_check(pool, 3, result({.outcome = Outcome::kTimeout}, Health::kUp, Health::kDown, 0, 3),
              at());
  apply_check(pool, 0, http_500("[-]etcd failed", Health::kUp, Health::kDown, 3), at());
  const PoolChanges changes =
      apply_check(pool, 1, http_500("[-]etcd failed", Health::kUp, Health::kDown, 3), at());
  EXPECT_EQ(changes.events, std::vector<PoolEvent>{PoolEvent::kFailOpenStarted});
  EXPECT_EQ(candidates(pool), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(changes.common_reason, "") << "c and d fail otherwise";
}

TEST(PoolState, EveryMemberFailingAlikeIsCommonMode) {
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
  bring_up(pool);
  apply_check(pool, 0, http_500("[-]etcd failed", Health::kUp, Health::kDown, 3), at());
  const PoolChanges changes =
      apply_check(pool, 1, http_500("[-]etcd failed", Health::kUp, Health::kDown, 3), at());
  EXPECT_EQ(changes.events, std::vector<PoolEvent>{PoolEvent::kFailOpenStarted});
  EXPECT_EQ(changes.common_reason, "HTTP 500 \"[-]etcd failed\"");
  EXPECT_EQ(candidates(pool), (std::vector<std::string>{"a", "b"}));
}

TEST(PoolState, FailOpenNeverRoutesToMembersThatAllRefuse) {
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
  bring_up(pool);
  const auto refused = result({.outcome = Outcome::kRefused}, Health::kUp, Health::kDown, 0, 3);
  apply_check(pool, 0, refused, at());
  const PoolChanges changes = apply_check(pool, 1, refused, at());
  EXPECT_EQ(changes.events, std::vector<PoolEvent>{PoolEvent::kNoCandidates});
  EXPECT_FALSE(pool.fail_open_active);
  EXPECT_TRUE(pool.snapshot->candidates.empty());
}

TEST(PoolState, WithoutFailOpenNothingHealthyMeansNoCandidates) {
  model::Pool config = monitored();
  config.fail_open = false;
  PoolRuntime pool = pool_of(config, {member("a", "10.0.0.1")});
  bring_up(pool);
  const PoolChanges changes = apply_check(
      pool, 0, result({.outcome = Outcome::kTimeout}, Health::kUp, Health::kDown, 0, 3), at());
  EXPECT_EQ(changes.events, std::vector<PoolEvent>{PoolEvent::kNoCandidates});
  ASSERT_NE(changes.snapshot, nullptr);
  EXPECT_TRUE(changes.snapshot->candidates.empty());
  EXPECT_TRUE(recompute(pool, at()).events.empty()) << "said once";
}

TEST(PoolState, BackupsTakeConnectionsOnlyWhileNoPrimaryIsHealthy) {
  PoolRuntime pool =
      pool_of(monitored(), {member("a", "10.0.0.1"), backup(member("z", "10.0.0.9"))});
  bring_up(pool);
  EXPECT_EQ(candidates(pool), std::vector<std::string>{"a"});
  apply_check(pool, 0, result({.outcome = Outcome::kTimeout}, Health::kUp, Health::kDown, 0, 3),
              at());
  EXPECT_EQ(candidates(pool), std::vector<std::string>{"z"});
  EXPECT_FALSE(pool.fail_open_active);
  apply_check(pool, 0, pass(Health::kDown), at());
  EXPECT_EQ(candidates(pool), std::vector<std::string>{"a"});
}

TEST(PoolState, WeightZeroDrainsAndDisabledIsOffline) {
  struct Case {
    const char* description;
    int weight;
    bool enabled;
    OperatingStatus expected;
  };
  const Case cases[] = {
      {.description = "weight 0",
       .weight = 0,
       .enabled = true,
       .expected = OperatingStatus::kDraining},
      {.description = "disabled",
       .weight = 1,
       .enabled = false,
       .expected = OperatingStatus::kOffline},
  };
  for (const Case& c : cases) {
    model::Member a = member("a", "10.0.0.1");
    a.weight = c.weight;
    a.enabled = c.enabled;
    PoolRuntime pool = pool_of(monitored(), {a, member("b", "10.0.0.2")});
    bring_up(pool);
    EXPECT_EQ(pool.members[0].status, c.expected) << c.description;
    EXPECT_FALSE(pool.members[0].in_rotation) << c.description;
    EXPECT_EQ(candidates(pool), std::vector<std::string>{"b"}) << c.description;
    EXPECT_EQ(pool.status, OperatingStatus::kOnline) << c.description;
  }
}

TEST(PoolState, ADisabledPoolIsOfflineNotInError) {
  model::Pool config = monitored();
  config.enabled = false;
  model::Member a = member("a", "10.0.0.1");
  a.enabled = false;  // as config_of() disables the members of a disabled pool
  PoolRuntime pool = pool_of(config, {a});
  bring_up(pool);
  EXPECT_EQ(pool.members[0].status, OperatingStatus::kOffline);
  EXPECT_EQ(pool.status, OperatingStatus::kOffline);
  EXPECT_TRUE(candidates(pool).empty());
  const OperatingStatus pools[] = {pool.status};
  EXPECT_EQ(model::load_balancer_status({.pools = pools}), OperatingStatus::kOnline);
}

TEST(PoolState, SlowStartRampsTheWeightAndAsksForAReweighUntilFull) {
  model::Pool config = monitored();
  config.slow_start = 10s;
  PoolRuntime pool = pool_of(config, {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
  bring_up(pool);
  apply_check(pool, 0, result({.outcome = Outcome::kTimeout}, Health::kUp, Health::kDown, 0, 3),
              at());
  PoolChanges changes = apply_check(pool, 0, pass(Health::kDown), at(kStart));
  ASSERT_NE(changes.snapshot, nullptr);
  EXPECT_EQ(changes.snapshot->candidates[0].weight, 1) << "just back: the least share";
  EXPECT_EQ(changes.reweigh_at, kStart + kReweighEvery);

  struct Tick {
    Duration after;
    int expected_weight;
    bool expect_reweigh;
  };
  const Tick ticks[] = {
      {.after = 5s, .expected_weight = kWeightScale / 2, .expect_reweigh = true},
      {.after = 10s, .expected_weight = kWeightScale, .expect_reweigh = false},
  };
  for (const Tick& t : ticks) {
    changes = reweigh(pool, at(kStart + t.after));
    ASSERT_NE(changes.snapshot, nullptr);
    EXPECT_EQ(changes.snapshot->candidates[0].weight, t.expected_weight);
    EXPECT_EQ(changes.snapshot->candidates[1].weight, kWeightScale) << "never was down";
    EXPECT_EQ(changes.reweigh_at.has_value(), t.expect_reweigh);
  }
  EXPECT_EQ(reweigh(pool, at(kStart + 11s)).snapshot, nullptr) << "at full weight";
}

TEST(PoolState, ReweighLeavesAPoolWithoutSlowStartAlone) {
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1")});
  pool.config.retries = 7;  // would make a new snapshot, were it recomputed
  EXPECT_EQ(reweigh(pool, at()).snapshot, nullptr);
}

TEST(PoolState, APassiveFailureTakesTheMemberOutUntilAFreshCheckPasses) {
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
  bring_up(pool);
  const auto changes = apply_connect_failure(pool, 0, /*silent=*/false, at());
  ASSERT_TRUE(changes.has_value());
  ASSERT_NE(changes->snapshot, nullptr);
  EXPECT_EQ(candidates(pool), std::vector<std::string>{"b"});
  EXPECT_EQ(pool.members[0].status, OperatingStatus::kOnline) << "its status waits for checks";
  EXPECT_FALSE(apply_connect_failure(pool, 0, false, at()).has_value()) << "out already";

  health::Event kept = pass();
  kept.result.reused_connection = true;
  EXPECT_EQ(apply_check(pool, 0, kept, at()).snapshot, nullptr);
  EXPECT_NE(apply_check(pool, 0, pass(), at()).snapshot, nullptr);
  EXPECT_EQ(candidates(pool), (std::vector<std::string>{"a", "b"}));
}

TEST(PoolState, AResultLikeTheLastChangesNothing) {
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1")});
  bring_up(pool);
  const PoolChanges changes = apply_check(pool, 0, pass(Health::kUp, 5), at());
  EXPECT_TRUE(changes.transitions.empty());
  EXPECT_TRUE(changes.closes.empty());
  EXPECT_EQ(changes.snapshot, nullptr);
  EXPECT_EQ(pool.members[0].successes, 5) << "the member's own record is kept";
}

TEST(PoolState, AnUnchangedRecomputeMakesNoSnapshot) {
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
  bring_up(pool);
  const proxy::PoolSnapshotPtr before = pool.snapshot;
  const PoolChanges changes = recompute(pool, at(kStart, 99));
  EXPECT_EQ(changes.snapshot, nullptr);
  EXPECT_TRUE(changes.transitions.empty());
  EXPECT_TRUE(changes.events.empty());
  EXPECT_EQ(pool.snapshot, before);
}

// Each change of what workers are told must reach them; a hand-written comparison once missed
// dead_peer_timeout.
TEST(PoolState, AnyConfigChangeWorkersSeeMakesANewSnapshot) {
  struct Case {
    const char* description;
    void (*change)(PoolRuntime&);
  };
  const Case cases[] = {
      {.description = "dead_peer_timeout",
       .change = [](PoolRuntime& p) { p.config.dead_peer_timeout = 30s; }},
      {.description = "connect_timeout",
       .change = [](PoolRuntime& p) { p.config.connect_timeout = 3s; }},
      {.description = "retries", .change = [](PoolRuntime& p) { p.config.retries = 1; }},
      {.description = "hedge_after", .change = [](PoolRuntime& p) { p.config.hedge_after = 0s; }},
      {.description = "first_byte_timeout",
       .change = [](PoolRuntime& p) { p.config.first_byte_timeout = 0s; }},
      {.description = "replay",
       .change = [](PoolRuntime& p) { p.config.replay = model::Replay::kNever; }},
      {.description = "algorithm",
       .change = [](PoolRuntime& p) { p.config.algorithm = model::Algorithm::kLeastConnections; }},
      {.description = "a member's weight",
       .change = [](PoolRuntime& p) { p.members[0].config.weight = 3; }},
      {.description = "proxy_protocol",
       .change = [](PoolRuntime& p) { p.config.proxy_protocol = model::ProxyProtocol::kV2; }},
      {.description = "a member's proxy_protocol",
       .change =
           [](PoolRuntime& p) { p.members[0].config.proxy_protocol = model::ProxyProtocol::kV1; }},
      {.description = "a member's name (workers log it)",
       .change = [](PoolRuntime& p) { p.members[0].config.name = "a-renamed"; }},
      {.description = "a member made anew: workers count and close sessions by its stats",
       .change =
           [](PoolRuntime& p) { p.members[0].stats = std::make_shared<proxy::BackendStats>(); }},
  };
  for (const Case& c : cases) {
    PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1")});
    bring_up(pool);
    const uint64_t old_version = pool.snapshot->version;
    c.change(pool);
    const PoolChanges changes = recompute(pool, at(kStart, old_version + 1));
    EXPECT_NE(changes.snapshot, nullptr) << c.description;
    EXPECT_EQ(pool.snapshot->version, old_version + 1) << c.description;
  }
}

TEST(PoolState, AMembersProxyProtocolOverridesThePools) {
  model::Pool config = monitored();
  config.proxy_protocol = model::ProxyProtocol::kV2;
  model::Member b = member("b", "10.0.0.2");
  b.proxy_protocol = model::ProxyProtocol::kOff;
  PoolRuntime pool = pool_of(config, {member("a", "10.0.0.1"), b});
  bring_up(pool);
  ASSERT_EQ(pool.snapshot->candidates.size(), 2u);
  for (const proxy::Backend& b : pool.snapshot->candidates) {
    EXPECT_EQ(b.proxy_protocol,
              b.name == "a" ? model::ProxyProtocol::kV2 : model::ProxyProtocol::kOff)
        << b.name;
  }
}

TEST(PoolState, ADeadPeerTimeoutChangeReachesTheWorkers) {
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1")});
  bring_up(pool);
  pool.config.dead_peer_timeout = 30s;
  const PoolChanges changes = recompute(pool, at(kStart, 5));
  ASSERT_NE(changes.snapshot, nullptr);
  EXPECT_EQ(changes.snapshot->backend_dead_peer, net::dead_peer_options(30s));
  EXPECT_NE(changes.snapshot->backend_dead_peer, net::dead_peer_options(10s));
}

// An operator's override (vigil member drain|maint|ready|weight) over what the checks say.
TEST(PoolState, AnAdminOverrideDecidesStatusRotationAndSessions) {
  using model::AdminOverride;
  using model::AdminState;
  struct Case {
    const char* description;
    std::optional<AdminOverride> override_;
    OperatingStatus expected_status;
    bool expected_in_rotation;
    bool expected_close;  // kMaint
    int expected_weight;  // in the snapshot; 0: not a candidate
  };
  const Case cases[] = {
      {.description = "drain: out of rotation, sessions continue",
       .override_ = AdminOverride{.state = AdminState::kDrain},
       .expected_status = OperatingStatus::kDraining,
       .expected_in_rotation = false,
       .expected_close = false,
       .expected_weight = 0},
      {.description = "maint: out of rotation, sessions closed",
       .override_ = AdminOverride{.state = AdminState::kMaint},
       .expected_status = OperatingStatus::kOffline,
       .expected_in_rotation = false,
       .expected_close = true,
       .expected_weight = 0},
      {.description = "a weight replaces the config's",
       .override_ = AdminOverride{.weight = 5},
       .expected_status = OperatingStatus::kOnline,
       .expected_in_rotation = true,
       .expected_close = false,
       .expected_weight = 5 * kWeightScale},
      {.description = "weight 0 drains",
       .override_ = AdminOverride{.weight = 0},
       .expected_status = OperatingStatus::kDraining,
       .expected_in_rotation = false,
       .expected_close = false,
       .expected_weight = 0},
      {.description = "ready (no override) is what the checks say",
       .override_ = std::nullopt,
       .expected_status = OperatingStatus::kOnline,
       .expected_in_rotation = true,
       .expected_close = false,
       .expected_weight = kWeightScale},
  };
  for (const Case& c : cases) {
    PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
    bring_up(pool);
    PoolChanges changes = apply_override(pool, 0, c.override_, "CLI", at());
    EXPECT_EQ(pool.members[0].status, c.expected_status) << c.description;
    EXPECT_EQ(pool.members[0].in_rotation, c.expected_in_rotation) << c.description;
    EXPECT_EQ(closed(changes, CloseReason::kMaint).size(), c.expected_close ? 1u : 0u)
        << c.description;
    int weight = 0;
    for (const proxy::Backend& b : pool.snapshot->candidates) {
      if (b.name == "a") weight = b.weight;
    }
    EXPECT_EQ(weight, c.expected_weight) << c.description;
    // Checks go on under an override, and their results do not undo it.
    apply_check(pool, 0, pass(Health::kUp, 7), at());
    changes = apply_check(
        pool, 0, result({.outcome = Outcome::kRefused}, Health::kUp, Health::kDown, 0, 3), at());
    EXPECT_EQ(pool.members[0].successes, 0) << c.description << ": still checked";
    if (c.override_ && c.override_->weight != 5) {
      EXPECT_EQ(pool.members[0].status, c.expected_status) << c.description << " after a check";
      EXPECT_TRUE(changes.transitions.empty()) << c.description;
    }
    EXPECT_FALSE(pool.members[0].in_rotation) << c.description;
  }
}

TEST(PoolState, AnOverrideTransitionNamesTheOverrideAndReadyRestores) {
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
  bring_up(pool);
  PoolChanges changes = apply_override(
      pool, 0, model::AdminOverride{.state = model::AdminState::kDrain}, "CLI", at());
  ASSERT_EQ(changes.transitions.size(), 1u);
  EXPECT_EQ(changes.transitions[0].line,
            "pool masters member a 10.0.0.1:6443 DRAINING: admin drain, set by CLI (was ONLINE); "
            "1 of 2 members up; 0 sessions closed, 0 retried, 0 hedged, 0 replayed, 0 failed");
  EXPECT_EQ(candidates(pool), std::vector<std::string>{"b"});
  // The override survives a recompute after a check result.
  apply_check(pool, 0, pass(Health::kUp, 9), at());
  recompute(pool, at());
  EXPECT_EQ(pool.members[0].status, OperatingStatus::kDraining);

  changes = apply_override(pool, 0, std::nullopt, "API", at());
  ASSERT_EQ(changes.transitions.size(), 1u);
  EXPECT_EQ(changes.transitions[0].after, OperatingStatus::kOnline);
  EXPECT_NE(changes.transitions[0].line.find("admin override cleared by API"), std::string::npos)
      << changes.transitions[0].line;
  EXPECT_EQ(candidates(pool), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(closed(changes, CloseReason::kMaint).empty());
}

TEST(PoolState, AnAdminDrainStaysOutOfAFailOpenRotation) {
  model::Pool config = monitored();
  config.fail_open = true;
  PoolRuntime pool = pool_of(config, {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
  bring_up(pool);
  apply_override(pool, 0, model::AdminOverride{.state = model::AdminState::kDrain}, "CLI", at());
  // Down, but answering (a refusing member would not get even a fail-open rotation).
  apply_check(pool, 1, http_500("[-]etcd failed", Health::kUp, Health::kDown, 3), at());
  EXPECT_TRUE(pool.fail_open_active);
  EXPECT_EQ(candidates(pool), std::vector<std::string>{"b"}) << "fail-open, but not the drained";
}

TEST(PoolState, AHealthChangeADrainHidesIsToldOnItsOwnLine) {
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2")});
  bring_up(pool);
  apply_override(pool, 0, model::AdminOverride{.state = model::AdminState::kDrain, .by = "CLI"},
                 "CLI", at());
  const health::Event refused =
      result({.outcome = Outcome::kRefused}, Health::kUp, Health::kDown, 0, 3);
  const CheckRecorded down = record_check_of(pool, 0, refused, at());
  ASSERT_TRUE(down.hidden.has_value()) << "no status transition would tell it";
  EXPECT_EQ(down.hidden->health, Health::kDown);
  EXPECT_EQ(down.hidden->keeps, OperatingStatus::kDraining);
  EXPECT_EQ(down.hidden->hidden_by, "admin drain, set by CLI");
  EXPECT_EQ(down.hidden->line,
            "pool masters member a 10.0.0.1:6443 health DOWN: connection refused (3/3 failures, "
            "check 0ms); stays DRAINING (admin drain, set by CLI)");
  EXPECT_TRUE(recompute(pool, at()).transitions.empty()) << "its status did not change";

  const health::Event still_refused =
      result({.outcome = Outcome::kRefused}, Health::kDown, Health::kDown, 0, 4);
  EXPECT_FALSE(record_check_of(pool, 0, still_refused, at()).hidden) << "no change, no line";
  const CheckRecorded up = record_check_of(pool, 0, pass(Health::kDown), at());
  ASSERT_TRUE(up.hidden.has_value());
  EXPECT_EQ(up.hidden->line,
            "pool masters member a 10.0.0.1:6443 health UP: HTTP 200 (2/2 successes, check 0ms); "
            "stays DRAINING (admin drain, set by CLI)");
}

TEST(PoolState, OnlyAHiddenHealthChangeGetsAHealthLine) {
  model::Member zero = member("c", "10.0.0.3");
  zero.weight = 0;
  PoolRuntime pool = pool_of(monitored(), {member("a", "10.0.0.1"), member("b", "10.0.0.2"), zero});
  apply_override(pool, 1, model::AdminOverride{.state = model::AdminState::kMaint, .by = "API"},
                 "API", at());
  const health::Event first = pass(Health::kUnchecked, 1);
  EXPECT_FALSE(record_check_of(pool, 0, first, at()).hidden) << "its transition tells it";
  const struct {
    size_t member;
    std::string_view ends;
  } cases[] = {
      {1, "(first check, 0ms); stays OFFLINE (admin maint, set by API)"},
      {2, "(first check, 0ms); stays DRAINING (weight 0 in the config)"},
  };
  for (const auto& c : cases) {
    const CheckRecorded r = record_check_of(pool, c.member, first, at());
    ASSERT_TRUE(r.hidden.has_value()) << c.ends;
    EXPECT_TRUE(r.hidden->line.ends_with(c.ends)) << r.hidden->line;
  }
}

}  // namespace
}  // namespace vigil::daemon
