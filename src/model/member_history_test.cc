// MemberHistory and last_hour(): minutes kept, cleared and forgotten; down periods spread over
// the minutes they covered; times are passed in, nothing sleeps.
#include "model/member_history.h"

#include <gtest/gtest.h>

namespace vigil::model {
namespace {

using namespace std::chrono_literals;

// 2024-05-01T12:00:00Z, the start of a minute.
const WallTime kT0 = WallTime(std::chrono::seconds(1714564800));

TEST(MemberHistory, KeepsEachMinutesChecks) {
  MemberHistory h;
  h.record_check(kT0 + 1s, 3ms, true);
  h.record_check(kT0 + 20s, 9ms, false);
  h.record_check(kT0 + 61s, 2ms, true);
  const MinuteSample first = h.minute(kT0 + 61s, 1);
  EXPECT_EQ(first.checks, 2);
  EXPECT_EQ(first.failures, 1);
  EXPECT_FLOAT_EQ(first.max_ms, 9);
  EXPECT_EQ(h.minute(kT0 + 61s, 0).checks, 1);
  EXPECT_EQ(h.since(), kT0 + 1s);
}

TEST(MemberHistory, KeepsTheSlowestCheckToWhatThePageShows) {
  // The page shows a tenth of a millisecond below 10 ms and whole milliseconds above.
  struct Case {
    Duration took;
    float ms;     // what the minute reads
    float error;  // at most
  };
  const Case cases[] = {
      {.took = 37us, .ms = 0.037F, .error = 0},
      {.took = 1234567ns, .ms = 1.235F, .error = 0},
      {.took = 32767us, .ms = 32.767F, .error = 0},
      {.took = 9999ms, .ms = 9999, .error = 0.16F},
      {.took = 2s + 345678us, .ms = 2345.678F, .error = 0.04F},
      {.took = 24h, .ms = 86'400'000, .error = 86'400'000.0F / 65'536},
      {.took = 0ns, .ms = 0, .error = 0},
  };
  for (const Case& c : cases) {
    MemberHistory h;
    h.record_check(kT0, c.took, true);
    EXPECT_NEAR(h.minute(kT0, 0).max_ms, c.ms, c.error + c.ms * 1e-6F) << c.ms;
  }
  MemberHistory h;
  h.record_check(kT0, 2s, true);
  h.record_check(kT0 + 1s, 1999ms, true);
  h.record_check(kT0 + 2s, 3ms, true);
  EXPECT_FLOAT_EQ(h.minute(kT0 + 2s, 0).max_ms, 2000);
}

TEST(MemberHistory, CountsSaturateWhereThePageDrawsNoDifference) {
  MemberHistory h;
  for (int i = 0; i < 1000; ++i) h.record_check(kT0 + i * 10ms, 1ms, i % 2 == 0);
  for (int i = 0; i < 5000; ++i) {
    h.record_transition(kT0 + i * 10ms);
  }
  const MinuteSample s = h.minute(kT0 + 50s, 0);
  EXPECT_EQ(s.checks, MinuteSample::kMaxChecks);
  EXPECT_EQ(s.failures, MinuteSample::kMaxChecks);
  EXPECT_EQ(s.transitions, MinuteSample::kMaxTransitions);
  EXPECT_EQ(sizeof(MemberHistory), 60 * 8 + 16) << "a minute in 8 bytes";
}

TEST(MemberHistory, ForgetsWhatIsOlderThanAnHourAndClearsSkippedMinutes) {
  MemberHistory h;
  h.record_check(kT0, 5ms, true);
  h.record_check(kT0 + 30min, 7ms, true);
  EXPECT_EQ(h.minute(kT0 + 30min, 30).checks, 1);
  // 61 minutes later the slot of kT0 has been reused: nothing of it remains.
  h.record_check(kT0 + 61min, 1ms, true);
  EXPECT_EQ(h.minute(kT0 + 61min, 61).checks, 0);
  EXPECT_EQ(h.minute(kT0 + 61min, 31).checks, 1);
  // A minute skipped (no check in it) reads empty, not as the old sample of its slot.
  EXPECT_EQ(h.minute(kT0 + 61min, 60).checks, 0);
  h.record_check(kT0 + 200min, 1ms, true);
  for (int ago = 1; ago < MemberHistory::kMinutes; ++ago) {
    EXPECT_EQ(h.minute(kT0 + 200min, ago), MinuteSample{}) << ago;
  }
}

TEST(MemberHistory, AClockSteppedBackCountsInTheNewestMinute) {
  MemberHistory h;
  h.record_check(kT0 + 10min, 1ms, true);
  h.record_check(kT0 + 5min, 1ms, false);
  EXPECT_EQ(h.minute(kT0 + 10min, 0).checks, 2);
  EXPECT_EQ(h.minute(kT0 + 10min, 5).checks, 0);
}

TEST(MemberHistory, SpreadsAnEndedDownPeriodOverItsMinutes) {
  MemberHistory h;
  h.record_transition(kT0 + 30s);
  h.record_transition(kT0 + 150s);
  h.record_down(kT0 + 30s, kT0 + 150s);  // down 2 minutes
  EXPECT_EQ(h.minute(kT0 + 150s, 2).down_ms, 30'000);
  EXPECT_EQ(h.minute(kT0 + 150s, 1).down_ms, 60'000);
  EXPECT_EQ(h.minute(kT0 + 150s, 0).down_ms, 30'000);
  EXPECT_EQ(h.minute(kT0 + 150s, 2).transitions, 1);
  EXPECT_EQ(h.minute(kT0 + 150s, 0).transitions, 1);
}

TEST(MemberHistory, ADownPeriodWithoutAStatusChangeIsNoFlap) {
  // A drained master rebooting: its health went down and up, its status stayed DRAINING.
  MemberHistory h;
  h.record_check(kT0, 1ms, true);
  h.record_down(kT0 + 10s, kT0 + 70s);
  EXPECT_EQ(h.minute(kT0 + 70s, 1).down_ms, 50'000);
  EXPECT_EQ(h.minute(kT0 + 70s, 0).down_ms, 10'000);
  const HourView v = last_hour(h, OperatingStatus::kOnline, kT0 + 70s, kT0 + 2min);
  EXPECT_EQ(v.down_ms, 60'000);
  EXPECT_EQ(v.transitions, 0);
}

TEST(LastHour, CountsFlapsAndDowntimeIncludingTheRunningDownPeriod) {
  MemberHistory h;
  h.record_check(kT0, 2ms, true);
  h.record_transition(kT0 + 10min);
  h.record_transition(kT0 + 11min);
  h.record_down(kT0 + 10min, kT0 + 11min);
  h.record_transition(kT0 + 20min);
  h.record_check(kT0 + 20min, 40ms, false);
  // Down since 20min, still down at 25min30s: 1 min closed + 5.5 min running.
  const HourView v = last_hour(h, OperatingStatus::kError, kT0 + 20min, kT0 + 25min + 30s);
  EXPECT_EQ(v.transitions, 3);
  EXPECT_EQ(v.down_ms, 60'000 + 330'000);
  EXPECT_FLOAT_EQ(v.max_ms, 40);
  const MinuteView& current = v.minutes.back();
  EXPECT_TRUE(current.known);
  EXPECT_EQ(current.length_ms, 30'000);
  EXPECT_EQ(current.down_ms, 30'000);
  // Before the first record nothing is known.
  EXPECT_FALSE(v.minutes.front().known);
  EXPECT_TRUE(v.minutes[static_cast<size_t>(MemberHistory::kMinutes - 26)].known);
}

TEST(LastHour, ADownPeriodOlderThanTheHourCountsOnlyItsLastHour) {
  MemberHistory h;
  h.record_check(kT0, 1ms, false);
  // The hour is the 59 minutes before now's and what has passed of now's.
  const HourView v = last_hour(h, OperatingStatus::kError, kT0, kT0 + 3h + 30s);
  EXPECT_EQ(v.down_ms, 59LL * 60'000 + 30'000);
  EXPECT_EQ(v.transitions, 0);
}

TEST(LastHour, TheFirstMinuteCountsFromTheFirstRecord) {
  MemberHistory h;
  h.record_check(kT0 + 40s, 1ms, false);
  const HourView v = last_hour(h, OperatingStatus::kError, kT0 + 40s, kT0 + 50s);
  EXPECT_EQ(v.minutes.back().length_ms, 10'000);
  EXPECT_EQ(v.minutes.back().down_ms, 10'000) << "down all the time it was watched";
}

TEST(LastHour, NothingRecordedIsAllUnknown) {
  const HourView v = last_hour({}, OperatingStatus::kOnline, kT0, kT0 + 1h);
  for (const MinuteView& m : v.minutes) EXPECT_FALSE(m.known);
  EXPECT_EQ(v.down_ms, 0);
}

}  // namespace
}  // namespace vigil::model
