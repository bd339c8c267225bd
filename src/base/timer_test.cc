#include "base/timer.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <memory>
#include <vector>

#include "base/asio_timer.h"
#include "testing/manual_clock.h"
#include "testing/manual_timer.h"
#include "testing/run_until.h"

namespace vigil {
namespace {

using namespace std::chrono_literals;

TEST(AsioTimerTest, FiresOnceAtItsTimeAndNotInsideArm) {
  boost::asio::io_context io;
  AsioTimerSource source(io);
  SteadyClock clock;
  int fired = 0;
  auto timer = source.create_timer([&] { ++fired; });
  const TimePoint at = clock.now() + 5ms;
  timer->arm(at);
  EXPECT_TRUE(timer->armed());
  EXPECT_EQ(fired, 0);
  ASSERT_TRUE(vigil::testing::run_until(io, [&] { return fired > 0; }));
  EXPECT_GE(clock.now(), at);
  EXPECT_FALSE(timer->armed());
  io.restart();
  io.run_for(10s);  // returns once no work is left: nothing more was queued
  EXPECT_EQ(fired, 1);
}

// Both fall due in one pass of the loop, so the second's completion is queued when the first
// cancels, re-arms or destroys it: it must not run.
TEST(AsioTimerTest, NoCallbackAfterCancelReArmOrDestructionEvenWhenAlreadyDue) {
  boost::asio::io_context io;
  AsioTimerSource source(io);
  SteadyClock clock;
  const TimePoint past = clock.now() - 1ms;
  std::vector<int> fired;
  std::unique_ptr<Timer> timers[2];
  for (int i = 0; i < 2; ++i) {
    timers[i] = source.create_timer([&, i] {
      fired.push_back(i);
      if (i == 0 && timers[1]) timers[1]->cancel();
      if (i == 1 && timers[0]) timers[0]->cancel();
    });
  }
  timers[0]->arm(past);
  timers[1]->arm(past);
  io.run_for(10s);
  EXPECT_EQ(fired.size(), 1u);

  fired.clear();
  io.restart();
  timers[0]->arm(past);
  timers[1]->arm(past);
  timers[0]->arm(clock.now() + 1h);  // re-armed: the due wait is replaced
  timers[1]->cancel();
  vigil::testing::run_ready(io);
  EXPECT_TRUE(fired.empty());
  EXPECT_TRUE(timers[0]->armed());
  timers[0].reset();  // destroyed while armed
  io.run_for(10s);
  EXPECT_TRUE(fired.empty());
}

TEST(ManualTimerTest, AdvanceFiresDueTimersInDeadlineOrderAtTheirDeadlines) {
  vigil::testing::ManualClock clock;
  vigil::testing::ManualTimerSource source(clock);
  const TimePoint start = clock.now();
  std::vector<std::pair<char, Duration>> fired;
  std::unique_ptr<Timer> b;
  auto a = source.create_timer([&] { fired.emplace_back('a', clock.now() - start); });
  b = source.create_timer([&] {
    fired.emplace_back('b', clock.now() - start);
    if (clock.now() - start < 15ms) b->arm(start + 15ms);  // re-armed inside its own callback
  });
  auto c = source.create_timer([&] { fired.emplace_back('c', clock.now() - start); });
  a->arm(start + 30ms);
  b->arm(start + 10ms);
  c->arm(start + 20ms);
  c->cancel();
  EXPECT_EQ(source.next_deadline(), start + 10ms);

  source.advance(5ms);
  EXPECT_TRUE(fired.empty());
  source.advance(35ms);
  const std::vector<std::pair<char, Duration>> expected = {{'b', 10ms}, {'b', 15ms}, {'a', 30ms}};
  EXPECT_EQ(fired, expected);
  EXPECT_EQ(clock.now() - start, 40ms);
  EXPECT_FALSE(a->armed());
  EXPECT_EQ(source.next_deadline(), std::nullopt);
}

TEST(ManualTimerTest, ATimerArmedForNowOrEarlierFiresOnTheNextAdvanceNotInsideArm) {
  vigil::testing::ManualClock clock;
  vigil::testing::ManualTimerSource source(clock);
  int fired = 0;
  auto t = source.create_timer([&] { ++fired; });
  t->arm(clock.now() - 1s);
  EXPECT_EQ(fired, 0);
  source.advance(0ms);
  EXPECT_EQ(fired, 1);
  source.advance(1h);
  EXPECT_EQ(fired, 1);
}

}  // namespace
}  // namespace vigil
