#include "daemon/pools.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "admin/octavia/object_store.h"
#include "daemon/rotation.h"
#include "testing/manual_clock.h"
#include "testing/manual_timer.h"

namespace vigil::daemon {
namespace {

using namespace std::chrono_literals;
using model::Health;
using model::OperatingStatus;
using model::Outcome;

// The health checker as Pools sees it: the targets it was given, the checks asked of it.
class FakeChecks final : public CheckTargets {
 public:
  void change_targets(std::vector<health::Target> set,
                      const std::vector<std::string>& unset) override {
    for (const std::string& id : unset) targets.erase(id);
    for (health::Target& t : set) targets[t.member_id] = std::move(t);
  }
  void check_now(const std::string& member_id) override { checked_now.push_back(member_id); }
  void confirm_silence(const std::string& member_id, TimePoint by) override {
    confirms.emplace_back(member_id, by);
  }

  std::map<std::string, health::Target> targets;  // by member id
  std::vector<std::string> checked_now;
  std::vector<std::pair<std::string, TimePoint>> confirms;
};

// The workers as Pools sees them: the slots they hold, and the sessions closed and probed. Each
// close is done at once, as if every worker had answered.
class FakeSink final : public PoolSink {
 public:
  void publish(proxy::PoolSlots s) override {
    ++publishes;
    slots.resize(s.size);
    for (auto& [slot, pool] : s.set) slots[slot] = std::move(pool);
  }
  void close_sessions(std::shared_ptr<const proxy::BackendStats> member,
                      std::function<void()> done) override {
    closed.push_back(member.get());
    done();
  }
  void probe_sessions(std::shared_ptr<const proxy::BackendStats> member,
                      const net::DeadPeerOptions&) override {
    probed.push_back(member.get());
  }

  size_t publishes = 0;
  std::vector<proxy::PoolSnapshotPtr> slots;
  std::vector<const proxy::BackendStats*> closed;
  std::vector<const proxy::BackendStats*> probed;
};

model::Member member(const std::string& name, const std::string& address) {
  return {.id = "m-" + name, .name = name, .address = address, .port = 6443};
}

model::Config load_balancer(model::Pool pool) {
  pool.id = "pool-" + pool.name;
  return {.id = "lb", .name = "lb", .pools = {std::move(pool)}};
}

model::HealthMonitor monitor(model::MonitorType type) { return {{.type = type}}; }

model::CheckResult refused() { return {.outcome = Outcome::kRefused}; }
model::CheckResult ok() { return {.outcome = Outcome::kOk, .http_code = 200}; }
model::CheckResult http_500(const std::string& failed_check) {
  return {.outcome = Outcome::kBadStatus, .http_code = 500, .failed_checks = {failed_check}};
}

class PoolsTest : public ::testing::Test {
 protected:
  // What ControlPlane::apply_changes() does with Pools on a reload of one load balancer: adopt,
  // then the workers get the slots, then the checks start.
  void apply(model::Config lb) {
    const Pools::Changed changed = pools_.adopt({&lb}, 0, {});
    pools_.drop_stale_overrides();
    sink_.publish(pools_.slot_changes());
    pools_.start_checks(changed);
  }

  // Runs what Pools posted for the end of this turn of the loop (the recompute of a burst of
  // results), and what that posted in turn.
  void end_of_turn() {
    for (int turn = 0; turn < 10 && !posted_.empty(); ++turn) {
      for (auto& f : std::exchange(posted_, {})) f();
    }
    ASSERT_TRUE(posted_.empty()) << "work posted without end";
  }

  // The checker's report of a result, as a threshold would have counted it.
  void check(const std::string& id, model::CheckResult result, Health previous, Health health,
             int successes, int failures) {
    const health::Target& t = checks_.targets.at(id);
    pools_.on_check({.member_id = t.member_id,
                     .tag = t.tag,
                     .result = std::move(result),
                     .health = health,
                     .previous = previous,
                     .changed = health != previous,
                     .successes = successes,
                     .failures = failures});
  }
  void first_pass(const std::string& id) { check(id, ok(), Health::kUnchecked, Health::kUp, 1, 0); }

  const MemberRuntime& of(const std::string& id) const {
    const MemberRuntime* m = pools_.member(id);
    EXPECT_NE(m, nullptr) << id;
    return *m;
  }
  const proxy::PoolSnapshot& published(const std::string& pool_id) const {
    const uint32_t slot = pools_.all().at(pool_id)->slot;
    EXPECT_LT(slot, sink_.slots.size());
    EXPECT_NE(sink_.slots[slot], nullptr);
    return *sink_.slots[slot];
  }
  // Member name -> weight in the published snapshot.
  std::map<std::string, int> rotation(const std::string& pool_id) const {
    std::map<std::string, int> out;
    for (const proxy::Backend& b : published(pool_id).candidates) out[b.name] = b.weight;
    return out;
  }
  size_t closes_of(const std::string& id) const {
    return static_cast<size_t>(std::ranges::count(sink_.closed, of(id).stats.get()));
  }

  vigil::testing::ManualClock clock_;
  vigil::testing::ManualTimerSource timers_{clock_};
  vigil::testing::ManualWallClock wall_;
  FakeChecks checks_;
  FakeSink sink_;
  admin::ObjectStore store_;  // in memory: no state file
  std::vector<std::function<void()>> posted_;
  Pools pools_{clock_, timers_, wall_, checks_, sink_, store_, [this](std::function<void()> f) {
                 posted_.push_back(std::move(f));
               }};
};

TEST_F(PoolsTest, AResultClosesSessionsPublishesAndRampsTheMemberBackUp) {
  model::Pool p{
      .name = "masters", .slow_start = 10s, .health_monitor = monitor(model::MonitorType::kTcp)};
  p.members = {member("a", "10.0.0.1"), member("b", "10.0.0.2")};
  apply(load_balancer(p));
  ASSERT_EQ(checks_.targets.size(), 2u);
  first_pass("m-a");
  first_pass("m-b");
  EXPECT_EQ(of("m-a").status, OperatingStatus::kOffline) << "recomputed at the end of the turn";
  end_of_turn();
  EXPECT_EQ(of("m-a").status, OperatingStatus::kOnline);
  EXPECT_EQ(rotation("pool-masters"),
            (std::map<std::string, int>{{"a", kWeightScale}, {"b", kWeightScale}}));

  check("m-a", refused(), Health::kUp, Health::kDown, 0, 3);
  end_of_turn();
  EXPECT_EQ(of("m-a").status, OperatingStatus::kError);
  EXPECT_EQ(closes_of("m-a"), 1u) << "down without an answer: its sessions are closed";
  EXPECT_EQ(closes_of("m-b"), 0u);
  EXPECT_EQ(rotation("pool-masters"), (std::map<std::string, int>{{"b", kWeightScale}}));
  ASSERT_FALSE(pools_.transitions().empty());
  EXPECT_EQ(pools_.transitions().back().member, "a");
  EXPECT_NE(pools_.transitions().back().message.find("DOWN"), std::string::npos)
      << pools_.transitions().back().message;

  check("m-a", ok(), Health::kDown, Health::kUp, 2, 0);
  end_of_turn();
  EXPECT_EQ(rotation("pool-masters").at("a"), 1) << "just back: the least share";
  EXPECT_EQ(timers_.next_deadline(), clock_.now() + kReweighEvery) << "the ramp is armed";
  timers_.advance(5s);
  EXPECT_EQ(rotation("pool-masters").at("a"), kWeightScale / 2);
  timers_.advance(5s);
  EXPECT_EQ(rotation("pool-masters").at("a"), kWeightScale);
  EXPECT_EQ(timers_.next_deadline(), std::nullopt) << "at full weight: the ramp stops";
  EXPECT_EQ(closes_of("m-a"), 1u);
}

// A cold start's first results arrive together: the pool is recomputed, and published, once for
// all of them rather than once per member.
TEST_F(PoolsTest, ResultsOfOneTurnArePublishedTogether) {
  model::Pool p{.name = "masters", .health_monitor = monitor(model::MonitorType::kTcp)};
  p.members = {member("a", "10.0.0.1"), member("b", "10.0.0.2"), member("c", "10.0.0.3")};
  apply(load_balancer(p));
  const size_t publishes = sink_.publishes;
  first_pass("m-a");
  first_pass("m-b");
  check("m-c", refused(), Health::kUnchecked, Health::kDown, 0, 1);
  EXPECT_EQ(posted_.size(), 1u) << "one recompute for the turn";
  EXPECT_EQ(sink_.publishes, publishes);
  end_of_turn();
  EXPECT_EQ(sink_.publishes, publishes + 1);
  EXPECT_EQ(of("m-a").status, OperatingStatus::kOnline);
  EXPECT_EQ(of("m-c").status, OperatingStatus::kError);
  EXPECT_EQ(rotation("pool-masters"),
            (std::map<std::string, int>{{"a", kWeightScale}, {"b", kWeightScale}}));
}

TEST_F(PoolsTest, NothingChangesOnceStopped) {
  model::Pool p{
      .name = "masters", .slow_start = 10s, .health_monitor = monitor(model::MonitorType::kTcp)};
  p.members = {member("a", "10.0.0.1"), member("b", "10.0.0.2")};
  apply(load_balancer(p));
  first_pass("m-a");
  first_pass("m-b");
  end_of_turn();
  check("m-a", refused(), Health::kUp, Health::kDown, 0, 3);
  end_of_turn();
  check("m-a", ok(), Health::kDown, Health::kUp, 2, 0);
  end_of_turn();
  ASSERT_TRUE(timers_.next_deadline().has_value()) << "ramping";
  const size_t publishes = sink_.publishes;

  pools_.stop();
  EXPECT_EQ(timers_.next_deadline(), std::nullopt) << "the ramp stops with it";
  check("m-b", refused(), Health::kUp, Health::kDown, 0, 3);
  pools_.on_connect_failure({.member_id = "m-b", .reason = "refused"});
  end_of_turn();
  timers_.advance(10s);
  EXPECT_EQ(of("m-b").status, OperatingStatus::kOnline);
  EXPECT_EQ(sink_.publishes, publishes);
  EXPECT_EQ(closes_of("m-b"), 0u);
}

TEST_F(PoolsTest, ASuspectAsksTheCheckerToConfirmWithinTheDataPlanesWait) {
  model::Pool p{.name = "masters", .health_monitor = monitor(model::MonitorType::kTcp)};
  p.members = {member("a", "10.0.0.1"), member("b", "10.0.0.2")};
  apply(load_balancer(p));
  first_pass("m-a");
  first_pass("m-b");
  end_of_turn();
  const size_t publishes = sink_.publishes;

  pools_.on_suspect({.pool = "masters", .member_id = "m-a", .waited = 800ms, .limit = 1s});
  ASSERT_EQ(checks_.confirms.size(), 1u);
  EXPECT_EQ(checks_.confirms[0].first, "m-a");
  EXPECT_EQ(checks_.confirms[0].second, clock_.now() + 500ms) << "at least half the wait";
  EXPECT_EQ(sink_.publishes, publishes) << "a suspect stays in rotation";
  EXPECT_TRUE(sink_.closed.empty());
}

TEST_F(PoolsTest, ASilentConnectConfirmedByASilentCheckClosesTheSessions) {
  model::Pool p{.name = "masters", .health_monitor = monitor(model::MonitorType::kTcp)};
  p.members = {member("a", "10.0.0.1"), member("b", "10.0.0.2")};
  apply(load_balancer(p));
  first_pass("m-a");
  first_pass("m-b");
  end_of_turn();

  pools_.on_connect_failure({.pool = "masters",
                             .member_id = "m-a",
                             .reason = "timed out",
                             .silent = true,
                             .waited = 1s,
                             .limit = 1s});
  EXPECT_EQ(rotation("pool-masters"), (std::map<std::string, int>{{"b", kWeightScale}}))
      << "out of rotation at once";
  EXPECT_EQ(sink_.probed, std::vector<const proxy::BackendStats*>{of("m-a").stats.get()});
  ASSERT_EQ(checks_.confirms.size(), 1u);
  EXPECT_EQ(checks_.confirms[0].second, clock_.now() + 500ms);
  EXPECT_EQ(closes_of("m-a"), 0u) << "one signal alone closes nothing";

  clock_.advance(500ms);
  pools_.on_silence({.member_id = "m-a", .tag = checks_.targets.at("m-a").tag});
  EXPECT_EQ(closes_of("m-a"), 1u) << "the check's silence is the second signal";
  pools_.on_silence({.member_id = "m-a", .tag = checks_.targets.at("m-a").tag});
  EXPECT_EQ(closes_of("m-a"), 1u) << "decided once";
  EXPECT_EQ(closes_of("m-b"), 0u);
}

// A member the pool ran keeps its health and its counters through an apply, whether the members
// keep their order (one added at the end: adopted in place) or not (one removed before it, the
// order turned round); one at a new address starts over.
TEST_F(PoolsTest, KeptMembersKeepTheirHealthWhateverBecomesOfTheOthers) {
  model::Pool pool{.name = "masters",
                   .members = {member("a", "10.0.0.1"), member("b", "10.0.0.2")}};
  pool.health_monitor = monitor(model::MonitorType::kTcp);
  apply(load_balancer(pool));
  first_pass("m-a");
  first_pass("m-b");
  end_of_turn();
  const proxy::BackendStats* b_stats = of("m-b").stats.get();
  const auto b_is_kept = [&](const char* what) {
    EXPECT_EQ(of("m-b").health, Health::kUp) << what;
    EXPECT_EQ(of("m-b").stats.get(), b_stats) << what;
  };

  pool.members.push_back(member("c", "10.0.0.3"));
  apply(load_balancer(pool));
  b_is_kept("c added at the end");
  EXPECT_EQ(of("m-a").health, Health::kUp);
  EXPECT_EQ(of("m-c").health, Health::kUnchecked);

  pool.members.erase(pool.members.begin());
  apply(load_balancer(pool));
  b_is_kept("a removed before it");
  EXPECT_EQ(pools_.member("m-a"), nullptr);

  std::ranges::reverse(pool.members);
  apply(load_balancer(pool));
  b_is_kept("the order turned round");
  EXPECT_EQ(rotation("pool-masters").count("b"), 1u);

  pool.members.back().address = "10.0.0.9";  // b, now last
  apply(load_balancer(pool));
  EXPECT_EQ(of("m-b").health, Health::kUnchecked) << "a new address is a new member";
  EXPECT_NE(of("m-b").stats.get(), b_stats);
}

TEST_F(PoolsTest, DrainAndMaintOverridesHoldAcrossAReload) {
  model::Pool p{.name = "masters", .health_monitor = monitor(model::MonitorType::kTcp)};
  p.members = {member("a", "10.0.0.1"), member("b", "10.0.0.2"), member("c", "10.0.0.3")};
  apply(load_balancer(p));
  for (const char* id : {"m-a", "m-b", "m-c"}) first_pass(id);
  end_of_turn();

  ASSERT_TRUE(
      pools_.set_override("m-a", model::AdminOverride{.state = model::AdminState::kDrain}, "CLI"));
  ASSERT_TRUE(
      pools_.set_override("m-b", model::AdminOverride{.state = model::AdminState::kMaint}, "CLI"));
  EXPECT_EQ(of("m-a").status, OperatingStatus::kDraining);
  EXPECT_EQ(closes_of("m-a"), 0u) << "drained: its sessions finish";
  EXPECT_EQ(of("m-b").status, OperatingStatus::kOffline);
  EXPECT_EQ(closes_of("m-b"), 1u) << "maintenance closes its sessions";
  EXPECT_EQ(rotation("pool-masters"), (std::map<std::string, int>{{"c", kWeightScale}}));
  EXPECT_EQ(store_.state().member_overrides.size(), 2u);

  p.retries = 5;  // the pool changes: adopted anew, its members kept
  apply(load_balancer(p));
  EXPECT_EQ(of("m-a").status, OperatingStatus::kDraining);
  EXPECT_EQ(of("m-a").health, Health::kUp) << "kept its health";
  EXPECT_EQ(of("m-b").status, OperatingStatus::kOffline);
  EXPECT_EQ(closes_of("m-b"), 1u) << "not closed again";
  EXPECT_EQ(rotation("pool-masters"), (std::map<std::string, int>{{"c", kWeightScale}}));
  EXPECT_EQ(published("pool-masters").version, pools_.all().at("pool-masters")->snapshot->version);

  // a moves: made anew (unchecked, new counters), it still has its override, kept by its id.
  // b leaves the configuration, and its override with it.
  p.members[0].address = "10.0.0.11";
  p.members.erase(p.members.begin() + 1);
  apply(load_balancer(p));
  EXPECT_EQ(of("m-a").health, Health::kUnchecked);
  EXPECT_EQ(of("m-a").status, OperatingStatus::kDraining);
  EXPECT_EQ(store_.state().member_overrides.size(), 1u);
  EXPECT_TRUE(store_.state().member_overrides.contains("m-a"));
}

// A drained master's reboot, as its checks see it, is on the page's "recent transitions": its
// status stays DRAINING, so no transition of its own would show it.
TEST_F(PoolsTest, ADrainedMembersHealthChangesAreRecentTransitionsToo) {
  model::Pool p{.name = "masters", .health_monitor = monitor(model::MonitorType::kTcp)};
  p.members = {member("a", "10.0.0.1"), member("b", "10.0.0.2")};
  apply(load_balancer(p));
  first_pass("m-a");
  first_pass("m-b");
  end_of_turn();
  ASSERT_TRUE(
      pools_.set_override("m-a", model::AdminOverride{.state = model::AdminState::kDrain}, "CLI"));
  const size_t before = pools_.transitions().size();
  check("m-a", refused(), Health::kUp, Health::kDown, 0, 3);
  end_of_turn();
  EXPECT_EQ(of("m-a").status, OperatingStatus::kDraining);
  ASSERT_EQ(pools_.transitions().size(), before + 1);
  EXPECT_NE(pools_.transitions().back().message.find("health DOWN"), std::string::npos)
      << pools_.transitions().back().message;
  EXPECT_NE(pools_.transitions().back().message.find("stays DRAINING"), std::string::npos);
  check("m-a", ok(), Health::kDown, Health::kUp, 2, 0);
  end_of_turn();
  ASSERT_EQ(pools_.transitions().size(), before + 2);
  EXPECT_NE(pools_.transitions().back().message.find("health UP"), std::string::npos);
  EXPECT_EQ(pools_.transitions().back().member, "a");
}

// What a previous process kept comes first, this one's after it, the ring capped as before; each
// change is told (the file is written from it).
TEST_F(PoolsTest, KeptTransitionsComeBeforeThisProcesssAndEachChangeIsTold) {
  std::vector<model::Transition> kept;
  for (size_t i = 0; i < Pools::kMaxTransitions + 5; ++i) {
    kept.push_back({.at = wall_.now() - 1h,
                    .pool_id = "pool-masters",
                    .pool = "masters",
                    .member = "a",
                    .message = "kept " + std::to_string(i)});
  }
  pools_.restore_transitions(kept);
  ASSERT_EQ(pools_.transitions().size(), Pools::kMaxTransitions);
  EXPECT_EQ(pools_.transitions().front().message, "kept 5") << "the newest kept";
  EXPECT_EQ(pools_.transitions().back().message, "kept 104");
  int told = 0;
  pools_.on_transitions_changed([&] { ++told; });
  model::Pool p{.name = "masters", .health_monitor = monitor(model::MonitorType::kTcp)};
  p.members = {member("a", "10.0.0.1"), member("b", "10.0.0.2")};
  apply(load_balancer(p));
  first_pass("m-a");
  first_pass("m-b");
  end_of_turn();
  EXPECT_EQ(told, 2) << "each first verdict is a transition";
  EXPECT_EQ(pools_.transitions().size(), Pools::kMaxTransitions);
  EXPECT_EQ(pools_.transitions().front().message, "kept 7");
  EXPECT_NE(pools_.transitions().back().message.find("member b"), std::string::npos);
}

TEST_F(PoolsTest, AnOverrideInTheStoreReachesItsMemberAtTheFirstApply) {
  ASSERT_TRUE(store_.set_override("m-a", model::AdminOverride{.state = model::AdminState::kMaint}));
  model::Pool p{.name = "masters", .health_monitor = monitor(model::MonitorType::kTcp)};
  p.members = {member("a", "10.0.0.1"), member("b", "10.0.0.2")};
  apply(load_balancer(p));
  first_pass("m-a");
  first_pass("m-b");
  end_of_turn();
  EXPECT_EQ(of("m-a").status, OperatingStatus::kOffline);
  EXPECT_EQ(rotation("pool-masters"), (std::map<std::string, int>{{"b", kWeightScale}}));
}

TEST_F(PoolsTest, MembersFailingAlikeFailOpenInsteadOfEmptyingThePool) {
  model::Pool p{.name = "masters", .health_monitor = monitor(model::MonitorType::kHttps)};
  p.members = {member("a", "10.0.0.1"), member("b", "10.0.0.2")};
  apply(load_balancer(p));
  first_pass("m-a");
  first_pass("m-b");
  end_of_turn();

  check("m-a", http_500("[-]etcd failed"), Health::kUp, Health::kDown, 0, 3);
  check("m-b", http_500("[-]etcd failed"), Health::kUp, Health::kDown, 0, 3);
  end_of_turn();
  const PoolRuntime& pool = *pools_.all().at("pool-masters");
  EXPECT_TRUE(pool.fail_open_active);
  EXPECT_EQ(pool.status, OperatingStatus::kError);
  EXPECT_EQ(rotation("pool-masters").size(), 2u) << "the cluster's problem: routes to both";
  EXPECT_TRUE(sink_.closed.empty()) << "they answer: their sessions finish";

  check("m-b", ok(), Health::kDown, Health::kUp, 2, 0);
  end_of_turn();
  EXPECT_FALSE(pool.fail_open_active);
  EXPECT_EQ(rotation("pool-masters"), (std::map<std::string, int>{{"b", kWeightScale}}));
}

TEST_F(PoolsTest, AnUpgradesHealthIsResumedByTheFirstApplyOnly) {
  model::Pool p{.name = "masters", .health_monitor = monitor(model::MonitorType::kTcp)};
  p.members = {member("a", "10.0.0.1"), member("b", "10.0.0.2")};
  const auto carried = [&](const model::Member& m, Health health, int successes, int failures) {
    return CarriedHealth{.member_id = m.id,
                         .checked = checked_target(*p.health_monitor, m),
                         .health = health,
                         .successes = successes,
                         .failures = failures,
                         .state_since = wall_.now() - 1h,
                         .health_since = wall_.now() - 2h,
                         .last_check_at = wall_.now() - 2s,
                         .last_check = health == Health::kUp ? ok() : refused()};
  };
  pools_.resume(
      {carried(p.members[0], Health::kDown, 0, 3), carried(p.members[1], Health::kUp, 2, 0)});
  apply(load_balancer(p));
  EXPECT_EQ(of("m-a").status, OperatingStatus::kError) << "down in the old process: no traffic";
  EXPECT_EQ(of("m-b").status, OperatingStatus::kOnline);
  EXPECT_EQ(of("m-a").health_status, OperatingStatus::kError);
  EXPECT_EQ(of("m-a").health_since, wall_.now() - 2h) << "the page's since goes on";
  EXPECT_EQ(rotation("pool-masters"), (std::map<std::string, int>{{"b", kWeightScale}}));
  const std::optional<health::Target::Resumed>& resumed = checks_.targets.at("m-a").resumed;
  ASSERT_TRUE(resumed.has_value());
  EXPECT_EQ(resumed->health, Health::kDown);
  EXPECT_EQ(resumed->failures, 3);
  EXPECT_EQ(resumed->first_check_in, p.health_monitor->interval - 2s) << "on its old schedule";
  EXPECT_EQ(pools_.health_to_hand_over().size(), 2u) << "and hands it on again";

  p.members[0].address = "10.0.0.11";  // made anew by a reload: the old verdict is not its own
  apply(load_balancer(p));
  EXPECT_EQ(of("m-a").health, Health::kUnchecked);
  EXPECT_FALSE(checks_.targets.at("m-a").resumed.has_value());
  EXPECT_EQ(of("m-b").health, Health::kUp);
}

}  // namespace
}  // namespace vigil::daemon
