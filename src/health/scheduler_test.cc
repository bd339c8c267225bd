#include "health/scheduler.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "testing/manual_clock.h"

namespace vigil::health {
namespace {

using namespace std::chrono_literals;
using Strings = std::vector<std::string>;

constexpr Timing kTiming{.interval = 5s, .fast_interval = 1s, .timeout = 2s};

class SchedulerTest : public ::testing::Test {
 protected:
  // take_due() with the members' ids, sorted, for comparisons.
  struct DueIds {
    Strings start;
    Strings timed_out;
  };
  DueIds take_due(TimePoint now) {
    const Scheduler::Due due = sched_.take_due(now);
    auto ids = [&](const std::vector<uint32_t>& slots) {
      Strings out;
      for (uint32_t slot : slots) out.push_back(sched_.id(slot));
      std::ranges::sort(out);
      return out;
    };
    return {ids(due.start), ids(due.timed_out)};
  }

  // Starts the member's due check now and completes it `runs_for` later.
  void run_check(const std::string& id, Duration runs_for, bool transitioning) {
    ASSERT_EQ(take_due(clock_.now()).start, Strings{id});
    clock_.advance(runs_for);
    sched_.completed(id, clock_.now(), transitioning);
  }
  // Advances the clock to the next wakeup.
  void advance_to_wakeup() {
    auto next = sched_.next_wakeup();
    ASSERT_TRUE(next.has_value());
    ASSERT_GE(*next, clock_.now());
    clock_.advance(*next - clock_.now());
  }

  testing::ManualClock clock_;
  Scheduler sched_{clock_, 42};
};

constexpr Duration kSpacing = kFirstCheckSpacing;

// A backlog (the control thread held up) starts a bounded batch per call, in the order it fell
// due; timeouts are never held back.
TEST_F(SchedulerTest, ABacklogStartsAtMostMaxStartsACallInOrder) {
  constexpr size_t kMembers = 1000;
  for (size_t i = 0; i < kMembers; ++i) sched_.add(fmt::format("m{:04}", i), kTiming);
  clock_.advance(1s);  // every first check is due
  std::vector<std::string> started;
  for (size_t expected : {256, 256, 256, 232}) {
    const Scheduler::Due due = sched_.take_due(clock_.now(), 256);
    ASSERT_EQ(due.start.size(), expected);
    for (uint32_t slot : due.start) started.push_back(sched_.id(slot));
    ASSERT_TRUE(sched_.next_wakeup().has_value());
    if (started.size() < kMembers) {
      EXPECT_LE(*sched_.next_wakeup(), clock_.now());
    }
  }
  EXPECT_TRUE(std::ranges::is_sorted(started)) << "in the order they fell due";
  EXPECT_EQ(std::set<std::string>(started.begin(), started.end()).size(), kMembers);
  EXPECT_TRUE(sched_.take_due(clock_.now(), 256).start.empty());
  clock_.advance(kTiming.timeout);
  const Scheduler::Due due = sched_.take_due(clock_.now(), 1);
  EXPECT_TRUE(due.start.empty());
  EXPECT_EQ(due.timed_out.size(), kMembers);
}

TEST_F(SchedulerTest, FirstChecksRunAtOnceSpacedApart) {
  EXPECT_FALSE(sched_.next_wakeup().has_value());
  const TimePoint t0 = clock_.now();
  sched_.add("a", kTiming);
  sched_.add("b", kTiming);
  sched_.add("c", kTiming);
  EXPECT_EQ(sched_.next_wakeup(), t0);
  auto due = take_due(t0);
  EXPECT_EQ(due.start, (Strings{"a"}));
  EXPECT_TRUE(due.timed_out.empty());
  EXPECT_TRUE(sched_.running("a"));
  EXPECT_EQ(sched_.next_wakeup(), t0 + kSpacing);
  EXPECT_EQ(take_due(t0 + 2 * kSpacing).start, (Strings{"b", "c"}));
  // A member added once the spacing has passed is due at once again.
  clock_.advance(10 * kSpacing);
  sched_.add("d", kTiming);
  EXPECT_EQ(sched_.next_wakeup(), clock_.now());
}

// An upgrade's new process carries on the old one's schedule: the first check waits.
TEST_F(SchedulerTest, AFirstCheckGivenATimeWaitsForIt) {
  const TimePoint t0 = clock_.now();
  sched_.add("carried", kTiming, t0 + 3s);
  sched_.add("new", kTiming);
  EXPECT_EQ(take_due(t0).start, (Strings{"new"})) << "not spaced behind the carried one";
  sched_.completed("new", t0, false);  // next due after 4.5 s at the soonest
  EXPECT_EQ(sched_.next_wakeup(), t0 + 3s);
  EXPECT_TRUE(take_due(t0 + 3s - 1ms).start.empty());
  EXPECT_EQ(take_due(t0 + 3s).start, (Strings{"carried"}));
  // A time already past is due at once.
  sched_.add("late", kTiming, t0 - 1s);
  EXPECT_EQ(sched_.next_wakeup(), t0);
}

TEST_F(SchedulerTest, TlsFirstChecksAreSpacedAMillisecondApart) {
  Timing tls = kTiming;
  tls.first_check_spacing = kTlsFirstCheckSpacing;
  const TimePoint t0 = clock_.now();
  for (int i = 0; i < 500; ++i) sched_.add("h" + std::to_string(i), tls);
  sched_.add("tcp", kTiming);  // after the last TLS member's millisecond
  EXPECT_EQ(take_due(t0 + 100ms - 1ns).start.size(), 100u);
  EXPECT_EQ(take_due(t0 + 500ms - 1ns).start.size(), 400u);
  EXPECT_EQ(take_due(t0 + 500ms).start, (Strings{"tcp"}));
}

TEST_F(SchedulerTest, TenThousandFirstChecksSpreadOverHalfASecond) {
  for (int i = 0; i < 10000; ++i) sched_.add("m" + std::to_string(i), kTiming);
  const TimePoint t0 = clock_.now();
  EXPECT_EQ(take_due(t0 + 50ms - kSpacing).start.size(), 1000u);
  EXPECT_EQ(take_due(t0 + 500ms - kSpacing).start.size(), 9000u);
  ASSERT_TRUE(sched_.next_wakeup().has_value());
  EXPECT_GT(*sched_.next_wakeup(), t0 + 500ms) << "one check each: the next are timeouts";
}

TEST_F(SchedulerTest, SlotsNameMembersAndAFreedSlotForgetsItsCheck) {
  const uint32_t a = sched_.add("a", kTiming);
  EXPECT_EQ(sched_.add("a", kTiming), a) << "a restart keeps the slot";
  clock_.advance(kFirstCheckSpacing);  // the restart is spaced after the first add
  ASSERT_EQ(sched_.take_due(clock_.now()).start, std::vector<uint32_t>{a});
  EXPECT_EQ(sched_.id(a), "a");
  sched_.remove("a");
  const uint32_t b = sched_.add("b", kTiming);
  EXPECT_EQ(b, a) << "the freed slot is reused";
  sched_.completed(a, clock_.now(), false);  // a's late result: b is not running, nothing moves
  clock_.advance(kFirstCheckSpacing);
  EXPECT_EQ(take_due(clock_.now()).start, Strings{"b"});
}

TEST_F(SchedulerTest, StableMemberWaitsTheInterval) {
  sched_.add("a", kTiming);
  const TimePoint start = clock_.now();
  run_check("a", 10ms, /*transitioning=*/false);
  const TimePoint next = *sched_.next_wakeup();
  EXPECT_GE(next, start + 4500ms);
  EXPECT_LE(next, start + 5500ms);

  clock_.advance(next - clock_.now() - 1ns);
  EXPECT_TRUE(take_due(clock_.now()).start.empty()) << "not before it is due";
  clock_.advance(1ns);
  EXPECT_EQ(take_due(clock_.now()).start, Strings{"a"});
}

TEST_F(SchedulerTest, TransitioningMemberUsesTheFastInterval) {
  sched_.add("a", kTiming);
  const TimePoint start = clock_.now();
  run_check("a", 10ms, /*transitioning=*/true);
  const TimePoint next = *sched_.next_wakeup();
  EXPECT_GE(next, start + 900ms);
  EXPECT_LE(next, start + 1100ms);

  advance_to_wakeup();
  const TimePoint second = clock_.now();
  run_check("a", 10ms, /*transitioning=*/false);
  EXPECT_GE(*sched_.next_wakeup(), second + 4500ms) << "settled again: back to the interval";
}

TEST_F(SchedulerTest, TimeoutIsReportedAtStartPlusTimeoutAndOnlyOnce) {
  sched_.add("a", kTiming);
  const TimePoint start = clock_.now();
  ASSERT_EQ(take_due(start).start, Strings{"a"});
  EXPECT_EQ(sched_.next_wakeup(), start + 2s);

  clock_.advance(2s - 1ns);
  EXPECT_TRUE(take_due(clock_.now()).timed_out.empty());
  clock_.advance(1ns);
  auto due = take_due(clock_.now());
  EXPECT_EQ(due.timed_out, Strings{"a"});
  EXPECT_TRUE(due.start.empty());

  EXPECT_FALSE(sched_.next_wakeup().has_value()) << "waiting for the caller to complete it";
  clock_.advance(10s);
  due = take_due(clock_.now());
  EXPECT_TRUE(due.timed_out.empty());
  EXPECT_TRUE(due.start.empty()) << "still running until completed()";

  sched_.completed("a", clock_.now(), /*transitioning=*/true);
  EXPECT_EQ(sched_.next_wakeup(), clock_.now()) << "overdue: starts at completion";
}

TEST_F(SchedulerTest, TimeoutsOfDifferentLengthsFallDueInDeadlineOrder) {
  const uint32_t slow = sched_.add("slow", {.interval = 5s, .fast_interval = 5s, .timeout = 3s});
  const uint32_t fast = sched_.add("fast", {.interval = 5s, .fast_interval = 5s, .timeout = 1s});
  const uint32_t mid = sched_.add("mid", {.interval = 5s, .fast_interval = 5s, .timeout = 2s});
  clock_.advance(2 * kSpacing);
  const TimePoint start = clock_.now();
  ASSERT_EQ(take_due(start).start.size(), 3u);
  EXPECT_EQ(sched_.next_wakeup(), start + 1s);

  sched_.completed("fast", start + 10ms, /*transitioning=*/false);
  EXPECT_EQ(sched_.next_wakeup(), start + 2s) << "a completed check's timeout no longer wakes";
  sched_.add("fast", {.interval = 5s, .fast_interval = 5s, .timeout = 1s});  // restarted
  ASSERT_EQ(sched_.take_due(start + 1500ms).start, std::vector<uint32_t>{fast});

  const Scheduler::Due due = sched_.take_due(start + 3s);
  EXPECT_EQ(due.timed_out, (std::vector<uint32_t>{mid, fast, slow}))
      << "2 s, 2.5 s and 3 s after the first start, from three queues";
}

TEST_F(SchedulerTest, ATimeoutPlannedAtAnEarlierTimeStillFallsDueInOrder) {
  sched_.add("a", {.interval = 5s, .fast_interval = 5s, .timeout = 2s});
  sched_.add("b", {.interval = 5s, .fast_interval = 5s, .timeout = 2s});
  const TimePoint t0 = clock_.now();
  ASSERT_EQ(sched_.take_due(t0 + 1s).start.size(), 2u);
  sched_.completed("b", t0 + 1s, /*transitioning=*/false);
  sched_.check_now("b");
  // The caller's time goes back (the steady clock never does): b's timeout, planned later, is
  // due before a's.
  ASSERT_EQ(take_due(t0 + 500ms).start, Strings{"b"});
  EXPECT_EQ(sched_.next_wakeup(), t0 + 2500ms);
  EXPECT_EQ(take_due(t0 + 2500ms).timed_out, Strings{"b"});
  EXPECT_EQ(take_due(t0 + 3s).timed_out, Strings{"a"});
}

TEST_F(SchedulerTest, NoOverlapWhenACheckOutlastsTheInterval) {
  sched_.add("a", {.interval = 1s, .fast_interval = 1s, .timeout = 10s});
  const TimePoint start = clock_.now();
  ASSERT_EQ(take_due(start).start, Strings{"a"});
  for (int i = 0; i < 5; ++i) {
    clock_.advance(1s);
    EXPECT_TRUE(take_due(clock_.now()).start.empty()) << "still running at " << i;
  }
  EXPECT_EQ(sched_.next_wakeup(), start + 10s) << "only the timeout is pending";
  sched_.completed("a", clock_.now(), /*transitioning=*/false);
  EXPECT_EQ(sched_.next_wakeup(), clock_.now());
  EXPECT_EQ(take_due(clock_.now()).start, Strings{"a"});
}

TEST_F(SchedulerTest, JitterStaysWithinTenPercent) {
  sched_.add("a", {.interval = 1s, .fast_interval = 1s, .timeout = 500ms});
  std::set<Duration> gaps;
  TimePoint previous = clock_.now();
  run_check("a", 1ms, false);
  for (int i = 0; i < 1000; ++i) {
    advance_to_wakeup();
    const Duration gap = clock_.now() - previous;
    previous = clock_.now();
    ASSERT_GE(gap, 900ms) << "round " << i;
    ASSERT_LE(gap, 1100ms) << "round " << i;
    gaps.insert(gap);
    run_check("a", 1ms, false);
  }
  EXPECT_GT(gaps.size(), 900u) << "jitter should vary";
  EXPECT_LT(*gaps.begin(), 920ms) << "should use the range";
  EXPECT_GT(*gaps.rbegin(), 1080ms) << "should use the range";
}

TEST_F(SchedulerTest, MembersAddedTogetherDriftApart) {
  sched_.add("a", kTiming);
  sched_.add("b", kTiming);
  clock_.advance(kSpacing);
  ASSERT_EQ(take_due(clock_.now()).start.size(), 2u);
  sched_.completed("a", clock_.now(), false);
  sched_.completed("b", clock_.now(), false);
  const TimePoint first = *sched_.next_wakeup();
  ASSERT_EQ(take_due(first).start.size(), 1u);
}

TEST_F(SchedulerTest, CheckNowMakesAnIdleMemberDue) {
  sched_.add("a", kTiming);
  run_check("a", 10ms, false);
  clock_.advance(1s);
  EXPECT_TRUE(take_due(clock_.now()).start.empty());
  sched_.check_now("a");
  EXPECT_EQ(sched_.next_wakeup(), clock_.now());
  EXPECT_EQ(take_due(clock_.now()).start, Strings{"a"});
}

TEST_F(SchedulerTest, CheckNowDoesNotStartASecondCheck) {
  sched_.add("a", kTiming);
  const TimePoint start = clock_.now();
  ASSERT_EQ(take_due(start).start, Strings{"a"});
  clock_.advance(100ms);
  sched_.check_now("a");
  EXPECT_TRUE(take_due(clock_.now()).start.empty());
  EXPECT_EQ(sched_.next_wakeup(), start + 2s);
  sched_.check_now("unknown");  // ignored
}

TEST_F(SchedulerTest, RemoveStopsChecks) {
  sched_.add("a", kTiming);
  sched_.add("b", kTiming);
  clock_.advance(kSpacing);
  ASSERT_EQ(take_due(clock_.now()).start.size(), 2u);
  sched_.remove("a");
  EXPECT_FALSE(sched_.contains("a"));
  clock_.advance(1h);
  sched_.completed("a", clock_.now(), false);  // a late completion is ignored
  sched_.completed("b", clock_.now(), false);
  for (int i = 0; i < 10; ++i) {
    advance_to_wakeup();
    const auto due = take_due(clock_.now());
    EXPECT_EQ(due.start, Strings{"b"});
    sched_.completed("b", clock_.now(), false);
  }
  sched_.remove("b");
  EXPECT_FALSE(sched_.next_wakeup().has_value());
}

TEST_F(SchedulerTest, AMemberInARemovedMembersPlaceIsNotTimedByItsEntries) {
  sched_.add("a", kTiming);
  const TimePoint a_started = clock_.now();
  ASSERT_EQ(take_due(a_started).start, Strings{"a"});  // a's timeout: a_started + 2s
  sched_.remove("a");
  clock_.advance(1s);
  sched_.add("b", kTiming);  // takes a's place
  ASSERT_EQ(take_due(clock_.now()).start, Strings{"b"});
  // a's timeout entry comes due first, and must not time out b.
  EXPECT_TRUE(take_due(a_started + 2s).timed_out.empty());
  EXPECT_EQ(take_due(clock_.now() + 2s).timed_out, Strings{"b"});
}

TEST_F(SchedulerTest, AddingAgainRestartsTheMember) {
  sched_.add("a", kTiming);
  ASSERT_EQ(take_due(clock_.now()).start, Strings{"a"});
  clock_.advance(100ms);
  sched_.add("a", kTiming);
  EXPECT_FALSE(sched_.running("a"));
  sched_.completed("a", clock_.now(), false);  // the old check's completion: ignored
  EXPECT_EQ(take_due(clock_.now()).start, Strings{"a"});
}

TEST_F(SchedulerTest, UpdateToAShorterIntervalActsNow) {
  sched_.add("a", {.interval = 1h, .fast_interval = 1h, .timeout = 1s});
  const TimePoint start = clock_.now();
  run_check("a", 10ms, false);
  EXPECT_GE(*sched_.next_wakeup(), start + 54min);
  sched_.update("a", {.interval = 1s, .fast_interval = 1s, .timeout = 1s});
  EXPECT_LE(*sched_.next_wakeup(), start + 1100ms);
  sched_.update("a", {.interval = 2h, .fast_interval = 2h, .timeout = 1s});
  EXPECT_LE(*sched_.next_wakeup(), start + 1100ms) << "never later";
}

}  // namespace
}  // namespace vigil::health
