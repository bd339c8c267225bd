#include "daemon/member_health.h"

#include <gtest/gtest.h>

namespace vigil::daemon {
namespace {

using namespace std::chrono_literals;
using model::Health;
using model::Outcome;

const TimePoint kNow = TimePoint{} + 1h;
const model::WallTime kWall = model::WallTime{} + 2h;

health::Event event(Outcome outcome, Health previous, Health health, bool reused = false) {
  return {.member_id = "m",
          .result = {.outcome = outcome, .reused_connection = reused},
          .health = health,
          .previous = previous,
          .changed = previous != health};
}

health::Event pass(bool reused = false) {
  return event(Outcome::kOk, Health::kUp, Health::kUp, reused);
}

TEST(MemberHealth, RecordsTheResultAndItsCounts) {
  MemberRuntime m;
  health::Event e = event(Outcome::kBadStatus, Health::kUnchecked, Health::kDown);
  e.result.http_code = 500;
  e.failures = 3;
  record_check(m, e, kNow, kWall, true);
  ASSERT_TRUE(m.last_check.has_value());
  EXPECT_EQ(m.last_check->http_code, 500);
  EXPECT_EQ(m.last_check_at, kWall);
  EXPECT_EQ(m.health, Health::kDown);
  EXPECT_TRUE(m.first_check);
  EXPECT_EQ(m.failures, 3);
  EXPECT_EQ(m.successes, 0);
  EXPECT_EQ(m.checks.checks, 1u);
  EXPECT_EQ(m.checks.failures, 1u);
}

TEST(MemberHealth, CheckDurationsFallInTheirBuckets) {
  struct Case {
    const char* description;
    Duration duration;
    size_t bucket;  // index in model::kCheckDurationBuckets; its size for +Inf
  };
  const Case cases[] = {
      {.description = "a LAN answer", .duration = 300us, .bucket = 0},
      {.description = "on a bound", .duration = 1ms, .bucket = 0},
      {.description = "just over", .duration = 1100us, .bucket = 1},
      {.description = "a slow TLS handshake", .duration = 80ms, .bucket = 6},
      {.description = "at the last bound", .duration = 5s, .bucket = 11},
      {.description = "beyond it", .duration = 6s, .bucket = 12},
  };
  for (const Case& c : cases) {
    MemberRuntime m;
    health::Event e = pass();
    e.result.duration = c.duration;
    record_check(m, e, kNow, kWall, true);
    for (size_t i = 0; i < m.checks.duration_buckets.size(); ++i) {
      EXPECT_EQ(m.checks.duration_buckets[i], i == c.bucket ? 1u : 0u) << c.description << " " << i;
    }
    EXPECT_DOUBLE_EQ(m.checks.duration_sum_seconds,
                     std::chrono::duration<double>(c.duration).count())
        << c.description;
    EXPECT_EQ(m.checks.failures, 0u) << c.description;
  }
}

TEST(MemberHealth, ACheckWeCouldNotMakeOnlyCounts) {
  MemberRuntime m;
  health::Event first = pass();
  first.successes = 4;
  record_check(m, first, kNow, kWall, true);
  ASSERT_TRUE(record_connect_failure(m, true, true));  // out of rotation, a silent suspect
  health::Event local = event(Outcome::kLocalError, Health::kUp, Health::kUp);
  local.successes = 4;
  const CheckEffects effects = record_check(m, local, kNow + 1s, kWall + 1s, true);
  EXPECT_FALSE(effects.passive_out_changed);
  EXPECT_FALSE(effects.close_sessions);  // no answer, but not the member's silence
  EXPECT_EQ(m.checks.local_failures, 1u);
  ASSERT_TRUE(m.last_check.has_value());
  EXPECT_EQ(m.last_check->outcome, Outcome::kOk);  // still the member's own last result
  EXPECT_EQ(m.last_check_at, kWall);
  EXPECT_TRUE(m.passive_out);
  EXPECT_TRUE(m.silent_suspect);  // the next real check confirms or clears it
  EXPECT_EQ(m.successes, 4);
}

TEST(MemberHealth, SlowStartCountsFromTheComebackOnly) {
  MemberRuntime m;
  record_check(m, event(Outcome::kOk, Health::kDown, Health::kUp), kNow, kWall, true);
  EXPECT_EQ(m.recovered_at, kNow);
  record_check(m, pass(), kNow + 5s, kWall, true);
  EXPECT_EQ(m.recovered_at, kNow) << "a pass of a member already up is no comeback";
  record_check(m, event(Outcome::kOk, Health::kUnchecked, Health::kUp), kNow + 9s, kWall, true);
  EXPECT_EQ(m.recovered_at, kNow) << "nor is a first check";
}

TEST(MemberHealth, AConnectFailureTakesAMonitoredMemberOutOnce) {
  MemberRuntime m;
  EXPECT_FALSE(record_connect_failure(m, /*has_monitor=*/false, false))
      << "without a monitor nothing could bring it back";
  EXPECT_FALSE(m.passive_out);
  EXPECT_TRUE(record_connect_failure(m, true, /*silent=*/false));
  EXPECT_TRUE(m.passive_out);
  EXPECT_FALSE(m.silent_suspect) << "a refusal is an answer";
  EXPECT_FALSE(record_connect_failure(m, true, /*silent=*/true)) << "already out";
  EXPECT_FALSE(m.silent_suspect);
}

TEST(MemberHealth, OnlyAPassOnANewConnectionBringsItBack) {
  MemberRuntime m;
  ASSERT_TRUE(record_connect_failure(m, true, false));
  // The race: a check on the kept connection was in flight when the connect failed, and passes.
  EXPECT_FALSE(record_check(m, pass(/*reused=*/true), kNow, kWall, true).passive_out_changed);
  EXPECT_TRUE(m.passive_out);
  EXPECT_FALSE(
      record_check(m, event(Outcome::kTimeout, Health::kUp, Health::kUp), kNow, kWall, true)
          .passive_out_changed);
  EXPECT_TRUE(m.passive_out);
  EXPECT_TRUE(record_check(m, pass(/*reused=*/false), kNow, kWall, true).passive_out_changed);
  EXPECT_FALSE(m.passive_out);
  EXPECT_FALSE(record_check(m, pass(false), kNow, kWall, true).passive_out_changed)
      << "nothing to end";
}

TEST(MemberHealth, ASilentSuspectWhoseCheckGetsNoAnswerEitherLosesItsSessions) {
  MemberRuntime m;
  ASSERT_TRUE(record_connect_failure(m, true, /*silent=*/true));
  EXPECT_TRUE(m.silent_suspect);
  const CheckEffects effects =
      record_check(m, event(Outcome::kTimeout, Health::kUp, Health::kUp), kNow, kWall, true);
  EXPECT_TRUE(effects.close_sessions);
  EXPECT_FALSE(m.silent_suspect) << "decided once";
  EXPECT_FALSE(
      record_check(m, event(Outcome::kTimeout, Health::kUp, Health::kUp), kNow, kWall, true)
          .close_sessions);
}

TEST(MemberHealth, ASilentSuspectThatAnswersKeepsItsSessions) {
  struct Case {
    const char* description;
    Outcome outcome;
    bool shutdown_sessions_on_down;
  };
  const Case cases[] = {
      {"it passes", Outcome::kOk, true},
      {"it answers with a failing status: alive and serving", Outcome::kBadStatus, true},
      {"it refuses: the host is up and resets its sessions itself", Outcome::kRefused, true},
      {"no answer, but the pool keeps sessions of down members", Outcome::kTimeout, false},
  };
  for (const Case& c : cases) {
    MemberRuntime m;
    ASSERT_TRUE(record_connect_failure(m, true, /*silent=*/true));
    const CheckEffects effects = record_check(m, event(c.outcome, Health::kUp, Health::kUp), kNow,
                                              kWall, c.shutdown_sessions_on_down);
    EXPECT_FALSE(effects.close_sessions) << c.description;
    EXPECT_FALSE(m.silent_suspect) << c.description;
  }
}

}  // namespace
}  // namespace vigil::daemon
