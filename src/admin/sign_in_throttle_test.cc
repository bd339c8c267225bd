#include "admin/sign_in_throttle.h"

#include <gtest/gtest.h>

#include <string>

namespace vigil::admin {
namespace {

using std::chrono::seconds;
const model::WallTime kStart = model::WallTime{} + std::chrono::hours(24 * 365 * 50);

TEST(SignInThrottle, FiveWrongTokensAreFreeThenEachWaitDoublesUpToAMinute) {
  SignInThrottle t;
  model::WallTime now = kStart;
  for (int i = 0; i < SignInThrottle::kFree; ++i) {
    EXPECT_EQ(t.wait("192.0.2.1", now), seconds(0));
    EXPECT_FALSE(t.failed("192.0.2.1", now));
  }
  EXPECT_TRUE(t.failed("192.0.2.1", now));  // the sixth starts the waits: logged once
  EXPECT_EQ(t.wait("192.0.2.1", now), seconds(1));
  EXPECT_EQ(t.wait("192.0.2.2", now), seconds(0));  // another source is not held up
  int64_t expected = 1;
  for (int i = 0; i < 8; ++i) {
    now += seconds(expected);
    EXPECT_EQ(t.wait("192.0.2.1", now), seconds(0)) << i;
    EXPECT_FALSE(t.failed("192.0.2.1", now));
    expected = std::min<int64_t>(expected * 2, 60);
    EXPECT_EQ(t.wait("192.0.2.1", now), seconds(expected)) << i;
  }
  EXPECT_EQ(expected, 60);
}

TEST(SignInThrottle, TheWaitIsRoundedUpAndARightTokenClearsTheSource) {
  SignInThrottle t;
  for (int i = 0; i <= SignInThrottle::kFree + 1; ++i) t.failed("a", kStart);
  EXPECT_EQ(t.wait("a", kStart + std::chrono::milliseconds(100)), seconds(2));
  t.succeeded("a");
  EXPECT_EQ(t.wait("a", kStart), seconds(0));
  EXPECT_EQ(t.size(), 0u);
}

TEST(SignInThrottle, ASourceSilentForFifteenMinutesStartsAfresh) {
  SignInThrottle t;
  for (int i = 0; i < 20; ++i) t.failed("a", kStart);
  const model::WallTime later = kStart + SignInThrottle::kForget;
  EXPECT_EQ(t.wait("a", later), seconds(0));  // the last wait (a minute) is long over
  for (int i = 0; i < SignInThrottle::kFree; ++i) EXPECT_FALSE(t.failed("a", later));
  EXPECT_TRUE(t.failed("a", later));
}

TEST(SignInThrottle, MemoryIsBoundedAndTheSourceSeenLongestAgoGoesFirst) {
  SignInThrottle t;
  for (int i = 0; i < SignInThrottle::kFree; ++i) t.failed("s0", kStart);
  for (size_t i = 1; i < SignInThrottle::kMaxSources; ++i) {
    t.failed("s" + std::to_string(i), kStart + std::chrono::milliseconds(i));
  }
  for (int i = 1; i < SignInThrottle::kFree; ++i) t.failed("s1", kStart + seconds(10));
  t.failed("new", kStart + seconds(10));
  EXPECT_EQ(t.size(), SignInThrottle::kMaxSources);
  EXPECT_TRUE(t.failed("s1", kStart + seconds(10)));  // kept: it was seen just now
  // s0 had its five free ones: kept, this would start its waits; forgotten, it is its first.
  EXPECT_FALSE(t.failed("s0", kStart + seconds(10)));
}

}  // namespace
}  // namespace vigil::admin
