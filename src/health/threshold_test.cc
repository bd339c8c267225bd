#include "health/threshold.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vigil::health {
namespace {

using model::Health;
constexpr Health U = Health::kUp;
constexpr Health D = Health::kDown;

struct Case {
  std::string description;
  int rise = 2;
  int fall = 3;
  std::vector<bool> results;
  std::vector<Health> expected;  // health after each result
};

class ThresholdTableTest : public ::testing::TestWithParam<Case> {};

TEST_P(ThresholdTableTest, HealthAfterEachResult) {
  const Case& c = GetParam();
  ASSERT_EQ(c.results.size(), c.expected.size()) << c.description;
  Threshold t(c.rise, c.fall);
  Health before = t.health();
  for (size_t i = 0; i < c.results.size(); ++i) {
    const bool changed = t.record(c.results[i]);
    EXPECT_EQ(t.health(), c.expected[i]) << c.description << ", after result " << i;
    EXPECT_EQ(changed, t.health() != before) << c.description << ", after result " << i;
    before = t.health();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, ThresholdTableTest,
    ::testing::Values(
        Case{.description = "first success decides at once", .results = {true}, .expected = {U}},
        Case{.description = "first failure decides at once", .results = {false}, .expected = {D}},
        Case{.description = "up goes down after fall failures",
             .results = {true, false, false, false},
             .expected = {U, U, U, D}},
        Case{.description = "down comes back after rise successes",
             .results = {false, true, true},
             .expected = {D, D, U}},
        Case{.description = "a success resets the failure count",
             .results = {true, false, false, true, false, false, false},
             .expected = {U, U, U, U, U, U, D}},
        Case{.description = "a failure resets the success count",
             .results = {false, true, false, true, true},
             .expected = {D, D, D, D, U}},
        Case{.description = "thresholds of one follow every result",
             .rise = 1,
             .fall = 1,
             .results = {true, false, true, false},
             .expected = {U, D, U, D}},
        Case{.description = "thresholds below one act as one",
             .rise = 0,
             .fall = -3,
             .results = {true, false, true},
             .expected = {U, D, U}},
        Case{.description = "more failures after down keep it down",
             .fall = 2,
             .results = {true, false, false, false, false},
             .expected = {U, U, D, D, D}}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::to_string(info.index); });

TEST(ThresholdTest, StartsUncheckedAndTransitioning) {
  Threshold t(2, 3);
  EXPECT_EQ(t.health(), Health::kUnchecked);
  EXPECT_TRUE(t.transitioning());
  EXPECT_EQ(t.consecutive_successes(), 0);
  EXPECT_EQ(t.consecutive_failures(), 0);
}

TEST(ThresholdTest, CountsAndTransitioning) {
  Threshold t(2, 3);
  t.record(true);
  EXPECT_FALSE(t.transitioning());
  EXPECT_EQ(t.consecutive_successes(), 1);

  t.record(false);
  EXPECT_TRUE(t.transitioning()) << "up with a failure: going down";
  EXPECT_EQ(t.consecutive_failures(), 1);
  EXPECT_EQ(t.consecutive_successes(), 0);

  t.record(false);
  t.record(false);
  EXPECT_EQ(t.health(), Health::kDown);
  EXPECT_FALSE(t.transitioning()) << "the last result agrees with down";
  EXPECT_EQ(t.consecutive_failures(), 3);

  t.record(true);
  EXPECT_TRUE(t.transitioning()) << "down with a success: coming back";
  EXPECT_EQ(t.consecutive_successes(), 1);
  EXPECT_EQ(t.consecutive_failures(), 0);

  t.record(true);
  EXPECT_EQ(t.health(), Health::kUp);
  EXPECT_FALSE(t.transitioning());
}

// An upgrade hands a member's state over: the new threshold goes on where the old one was, so
// one passing check does not bring a down member back (nor one failure take an up one down).
TEST(ThresholdTest, ResumedStateKeepsTheThresholds) {
  Threshold down(2, 3);
  down.resume(Health::kDown, 0, 5);
  EXPECT_FALSE(down.record(true)) << "one success of two";
  EXPECT_EQ(down.health(), Health::kDown);
  EXPECT_TRUE(down.record(true));
  EXPECT_EQ(down.health(), Health::kUp);

  Threshold going_down(2, 3);
  going_down.resume(Health::kUp, 0, 2);
  EXPECT_TRUE(going_down.transitioning());
  EXPECT_TRUE(going_down.record(false)) << "the third failure in a row";
  EXPECT_EQ(going_down.health(), Health::kDown);
}

}  // namespace
}  // namespace vigil::health
