// The follower's decisions on a fake clock: list then watch, resume, re-list on 410, back off
// with jitter, and what the operator is told meanwhile.
#include "kube/watch_plan.h"

#include <gtest/gtest.h>

namespace vigil::kube {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
const TimePoint t0{};

TEST(WatchPlan, ListsThenWatchesFromTheListsVersion) {
  WatchPlan plan;
  EXPECT_EQ(plan.start().kind, Step::Kind::kList);
  EXPECT_EQ(plan.state(), SourceState::kBootstrap);
  EXPECT_EQ(plan.listed("10", t0).kind, Step::Kind::kWatch);
  EXPECT_EQ(plan.state(), SourceState::kFollowing);
  EXPECT_EQ(plan.resource_version(), "10");
  plan.saw("12");
  EXPECT_EQ(plan.resource_version(), "12");
  // A watch that times out, as every watch does, is resumed from the last version at once.
  EXPECT_EQ(plan.watch_ended(t0 + seconds(300)).kind, Step::Kind::kWatch);
  EXPECT_EQ(plan.resource_version(), "12");
  EXPECT_EQ(plan.state(), SourceState::kFollowing);
  EXPECT_FALSE(plan.trouble_since());
}

TEST(WatchPlan, GoneListsAgainAtOnce) {
  WatchPlan plan;
  plan.listed("10", t0);
  EXPECT_EQ(plan.expired(t0 + seconds(5)).kind, Step::Kind::kList);
  EXPECT_EQ(plan.resource_version(), "");
  EXPECT_EQ(plan.state(), SourceState::kStale);
  EXPECT_EQ(plan.listed("40", t0 + seconds(5)).kind, Step::Kind::kWatch);
  EXPECT_EQ(plan.state(), SourceState::kFollowing);
  EXPECT_FALSE(plan.trouble_since());
}

TEST(WatchPlan, FailuresBackOffDoublingToThirtySecondsWithJitter) {
  WatchPlan plan;
  plan.listed("10", t0);
  const Duration longest[] = {seconds(1),  seconds(2),  seconds(4), seconds(8),
                              seconds(16), seconds(30), seconds(30)};
  TimePoint now = t0 + seconds(1);
  for (Duration want : longest) {
    const Step top = plan.failed("connect: refused", now, 0.999999);
    EXPECT_EQ(top.kind, Step::Kind::kWait);
    EXPECT_LE(top.wait, want);
    EXPECT_GT(top.wait, want * 0.99);
    now += top.wait;
  }
  // The least jitter halves it.
  WatchPlan other;
  EXPECT_EQ(other.failed("x", t0, 0.0).wait, milliseconds(500));
  EXPECT_EQ(plan.state(), SourceState::kStale);
  EXPECT_EQ(plan.last_error(), "connect: refused");
  EXPECT_EQ(plan.trouble_since(), t0 + seconds(1));  // the first failure, not the last
  EXPECT_EQ(plan.failures(), 7);
  // A list that answers ends it all.
  plan.listed("99", now);
  EXPECT_EQ(plan.failures(), 0);
  EXPECT_EQ(plan.last_error(), "");
  EXPECT_LE(plan.failed("again", now, 0.999999).wait, seconds(1));
}

TEST(WatchPlan, BeforeTheFirstAnswerTheFilesMembersStay) {
  WatchPlan plan;
  plan.failed("connect: refused", t0 + seconds(2), 0.5);
  EXPECT_EQ(plan.state(), SourceState::kBootstrap);
  EXPECT_EQ(plan.trouble_since(), t0 + seconds(2));
}

}  // namespace
}  // namespace vigil::kube
