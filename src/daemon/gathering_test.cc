// Gathering workers' answers on a manual clock: all in, one missing past the deadline, late
// answers after it, none expected.
#include "daemon/gathering.h"

#include <gtest/gtest.h>

#include "testing/manual_clock.h"
#include "testing/manual_timer.h"

namespace vigil::daemon {
namespace {

using namespace std::chrono_literals;

class GatheringTest : public ::testing::Test {
 protected:
  std::shared_ptr<Gathering<int>> start(size_t pending) {
    return gathering<int>(pending, clock_, timers_, [this](Result<std::vector<int>> r) {
      ++calls_;
      result_ = std::move(r);
    });
  }

  testing::ManualClock clock_;
  testing::ManualTimerSource timers_{clock_};
  int calls_ = 0;
  Result<std::vector<int>> result_ = fail("not done");
};

TEST_F(GatheringTest, DoneOnceEveryAnswerIsIn) {
  auto g = start(3);
  g->add(1);
  g->add(2);
  EXPECT_EQ(calls_, 0);
  g->add(3);
  ASSERT_EQ(calls_, 1);
  EXPECT_EQ(result_.value(), (std::vector<int>{1, 2, 3}));
  timers_.advance(kWorkersAnswerWithin + 1s);
  EXPECT_EQ(calls_, 1) << "the deadline was cancelled";
}

TEST_F(GatheringTest, AMissingAnswerFailsAtTheDeadline) {
  auto g = start(2);
  g->add(1);
  timers_.advance(kWorkersAnswerWithin - 1ms);
  EXPECT_EQ(calls_, 0);
  timers_.advance(1ms);
  ASSERT_EQ(calls_, 1);
  ASSERT_FALSE(result_);
  EXPECT_EQ(result_.error().message, "1 of the workers did not answer within 2000 ms");
  g->add(2);  // the wedged worker answers at last: nobody hears it
  EXPECT_EQ(calls_, 1);
}

TEST_F(GatheringTest, NothingToWaitForIsDoneAtOnce) {
  start(0);
  ASSERT_EQ(calls_, 1);
  EXPECT_TRUE(result_.value().empty());
}

}  // namespace
}  // namespace vigil::daemon
