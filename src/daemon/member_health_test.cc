#include "daemon/member_health.h"

#include <gtest/gtest.h>

#include <optional>

#include "proxy/session.h"
#include "testing/manual_clock.h"

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

// One member's timeline on the manual clock, with the system tests' pool (first_byte_timeout 1 s,
// connect_timeout 1 s, check timeout 1 s): a client's first flight goes out at 0; the member
// answers first flights after `flight_answer`, sends a check its first byte (the TLS handshake)
// after `check_byte` and its verdict after `check_answer` (nullopt: never; a refusal at once when
// `refuses`); a check due by its interval starts at `interval_check` (before 0: after the fault
// but before the first flight reached the member). The worker reports it suspect at
// suspect_after() and silent at the first-byte timeout, as session_replay.cc does; the control
// plane asks for a check to confirm the silence when check_suspect() or the failure says so (one
// check at a time, as the scheduler runs them: a check in flight is the one asked of), and hears
// of it at the end of confirm_window() when it had no byte by then (HealthChecker::
// confirm_silence); the check's result comes at its answer or its timeout.
struct Timeline {
  std::optional<Duration> flight_answer;
  std::optional<Duration> check_answer;
  std::optional<Duration> check_byte = check_answer;
  bool refuses = false;
  std::optional<Duration> interval_check;
};
struct Seen {
  std::optional<Duration> out_at;     // out of rotation (reported silent)
  std::optional<Duration> closed_at;  // its sessions closed
};

Seen play(const Timeline& t) {
  constexpr Duration kFirstByteTimeout = 1s;
  constexpr Duration kCheckTimeout = 1s;
  constexpr Duration kSuspectAfter = proxy::Session::suspect_after(kFirstByteTimeout);
  vigil::testing::ManualClock clock;
  MemberRuntime m;
  record_check(m, pass(), clock.now(), kWall, true);  // up and in rotation before the fault
  clock.advance(500ms);
  const TimePoint zero = clock.now() + 1500ms;  // the fault comes before: at -1.5 s at most
  std::optional<TimePoint> check_ends;
  std::optional<TimePoint> check_byte_at;  // when the check in flight gets its first byte
  std::optional<TimePoint> silence_at;     // when the check in flight is asked about
  health::Event check_result;
  auto start_check = [&] {
    if (check_ends) return;  // one in flight: the scheduler starts no second one
    const auto byte = t.check_byte.value_or(Duration::max());
    if (t.refuses) {
      check_ends = clock.now();
      check_result = event(Outcome::kRefused, Health::kUp, Health::kUp);
    } else if (t.check_answer && *t.check_answer < kCheckTimeout) {
      check_ends = clock.now() + *t.check_answer;
      check_result = pass();
    } else {
      check_ends = clock.now() + kCheckTimeout;
      check_result = event(Outcome::kTimeout, Health::kUp, Health::kUp);
    }
    if (byte < kCheckTimeout) check_byte_at = clock.now() + byte;
  };
  auto confirm_silence = [&](Duration waited) {
    start_check();
    const TimePoint by = clock.now() + confirm_window(kFirstByteTimeout, waited, kCheckTimeout);
    silence_at = std::min(silence_at.value_or(TimePoint::max()), by);
  };
  const bool answered_in_time = t.flight_answer && *t.flight_answer < kFirstByteTimeout;
  Seen out;
  for (; clock.now() - zero <= 5s; clock.advance(5ms)) {
    const Duration at = clock.now() - zero;
    if (t.interval_check && at == *t.interval_check) start_check();
    const bool waiting = !t.flight_answer || at < *t.flight_answer;
    if (at == kSuspectAfter && waiting && check_suspect(m, true)) confirm_silence(kSuspectAfter);
    if (at == kFirstByteTimeout && !answered_in_time && record_connect_failure(m, true, true)) {
      out.out_at = at;
      if (silence_confirmed(m, clock.now(), kFirstByteTimeout, true)) {
        out.closed_at = at;
      } else {
        confirm_silence(kFirstByteTimeout);
      }
    }
    const bool no_byte = !check_byte_at || *check_byte_at > clock.now();
    if (silence_at && clock.now() >= *silence_at && check_ends && no_byte &&
        record_silence(m, clock.now(), true)) {
      out.closed_at = at;
    }
    if (silence_at && clock.now() >= *silence_at) silence_at.reset();
    if (check_ends && clock.now() >= *check_ends) {
      check_ends.reset();
      check_byte_at.reset();
      silence_at.reset();  // the check asked of is over
      if (record_check(m, check_result, clock.now(), kWall, true).close_sessions) {
        out.closed_at = at;
      }
    }
  }
  return out;
}

TEST(MemberHealth, AHungMembersSessionsCloseAsItsFirstFlightTimesOut) {
  const Seen hung = play({.flight_answer = std::nullopt, .check_answer = std::nullopt});
  EXPECT_EQ(hung.out_at, 1s);
  EXPECT_EQ(hung.closed_at, 1s) << "the suspect's check, silent since 100 ms, confirms it then; "
                                   "not at its own timeout (1.1 s), nor at 1 s + 1 s";
}

TEST(MemberHealth, ACheckAlreadyInFlightWhenTheFirstFlightCameIsItsEvidenceToo) {
  struct Case {
    const char* description;
    Duration interval_check;
    Duration closed_at;
  };
  const Case cases[] = {
      {.description = "it times out before the first-byte timeout: the silence is confirmed then",
       .interval_check = -200ms,
       .closed_at = 1s},
      {.description = "it is still silent at the first-byte timeout: confirmed then",
       .interval_check = 50ms,
       .closed_at = 1s},
      {.description = "it had timed out before the first flight went out: not evidence of it",
       .interval_check = -1100ms,  // timed out at -100 ms; the suspect's check confirms
       .closed_at = 1s},
  };
  for (const Case& c : cases) {
    const Seen got = play({.flight_answer = std::nullopt,
                           .check_answer = std::nullopt,
                           .interval_check = c.interval_check});
    EXPECT_EQ(got.out_at, 1s) << c.description;
    EXPECT_EQ(got.closed_at, c.closed_at) << c.description;
  }
}

// A first flight that fails with no check asked before (a suspect report is at most one a second
// per member): the check it starts gets half the wait to send a byte.
TEST(MemberHealth, ACheckStartedAtTheTimeoutGetsHalfOfItToAnswer) {
  EXPECT_EQ(confirm_window(1s, 1s, 2s), 500ms);
  EXPECT_EQ(confirm_window(1s, 100ms, 2s), 900ms) << "until the first flight's own timeout";
  EXPECT_EQ(confirm_window(1s, 200ms, 2s), 800ms) << "a hedged connect: until connect_timeout";
  EXPECT_EQ(confirm_window(3s, 100ms, 2s), 2s) << "never past the check's timeout";
}

TEST(MemberHealth, ASlowButAliveMemberKeepsItsSessions) {
  struct Case {
    const char* description;
    Timeline timeline;
    std::optional<Duration> out_at;
  };
  const Case cases[] = {
      {.description = "answers its first flight late, within the timeout; checks are quick",
       .timeline = {.flight_answer = 500ms, .check_answer = 20ms},
       .out_at = std::nullopt},
      {.description = "answers its first flight late, within the timeout; checks are slow too",
       .timeline = {.flight_answer = 900ms, .check_answer = 900ms, .check_byte = 10ms},
       .out_at = std::nullopt},
      {.description = "too late for the first flight (replayed), but its checks answer",
       .timeline = {.flight_answer = 1500ms, .check_answer = 600ms, .check_byte = 10ms},
       .out_at = 1s},
      {.description = "never answers first flights; its handshake is quick, its /readyz slow",
       .timeline = {.flight_answer = std::nullopt, .check_answer = 950ms, .check_byte = 10ms},
       .out_at = 1s},
      {.description = "refuses checks: the host is up and resets its sessions itself",
       .timeline = {.flight_answer = std::nullopt, .check_answer = std::nullopt, .refuses = true},
       .out_at = 1s},
  };
  for (const Case& c : cases) {
    const Seen got = play(c.timeline);
    EXPECT_EQ(got.closed_at, std::nullopt) << c.description;
    EXPECT_EQ(got.out_at, c.out_at) << c.description;
  }
}

// A member whose own TLS stack takes longer than first_byte_timeout to say anything is as silent
// as the pool's own limit says a dead one is, whatever its /readyz would answer later.
TEST(MemberHealth, AMemberSilentPastTheFirstByteTimeoutOnBothPathsLosesItsSessions) {
  const Seen got = play({.flight_answer = std::nullopt, .check_answer = 950ms});
  EXPECT_EQ(got.out_at, 1s);
  EXPECT_EQ(got.closed_at, 1s);
}

TEST(MemberHealth, ASilenceAfterTheCheckAnsweredOrWithoutASuspectClosesNothing) {
  MemberRuntime m;
  EXPECT_FALSE(record_silence(m, kNow, true)) << "no silent connect or first flight before it";
  EXPECT_EQ(m.unanswered_check_at, kNow) << "but it is evidence for one that comes";
  EXPECT_TRUE(silence_confirmed(m, kNow, 1s, true) == false) << "not suspect yet";
  ASSERT_TRUE(record_connect_failure(m, true, /*silent=*/true));
  EXPECT_TRUE(silence_confirmed(m, kNow + 500ms, 1s, true));
  MemberRuntime kept;
  ASSERT_TRUE(record_connect_failure(kept, true, true));
  EXPECT_FALSE(record_silence(kept, kNow, /*shutdown_sessions_on_down=*/false));
  EXPECT_FALSE(kept.silent_suspect) << "decided: the check's timeout decides nothing more";
}

TEST(MemberHealth, ASuspectIsCheckedOnlyWhenThatCanTellSomething) {
  MemberRuntime m;
  EXPECT_FALSE(check_suspect(m, /*has_monitor=*/false)) << "no check to run";
  EXPECT_TRUE(check_suspect(m, true));
  EXPECT_FALSE(m.passive_out) << "a suspect stays in rotation";
  ASSERT_TRUE(record_connect_failure(m, true, true));
  EXPECT_FALSE(check_suspect(m, true)) << "out already: its failure started a check";
}

}  // namespace
}  // namespace vigil::daemon
