#include "daemon/tickler.h"

#include <gtest/gtest.h>

#include <vector>

#include "testing/manual_clock.h"
#include "testing/manual_timer.h"

namespace vigil::daemon {
namespace {

using namespace std::chrono_literals;

proxy::LostSession session(uint16_t client_port) {
  return {.local = *net::SocketAddress::from_ip("192.0.2.100", 6443),
          .client = *net::SocketAddress::from_ip("198.51.100.50", client_port)};
}

class TicklerTest : public ::testing::Test {
 protected:
  vigil::testing::ManualClock clock_;
  vigil::testing::ManualTimerSource timers_{clock_};
  std::vector<uint16_t> sent_;  // the client port of each tickle, in order
  bool refuse_ = false;
  Tickler tickler_{clock_, timers_, [this](const proxy::LostSession& s) {
                     sent_.push_back(s.client.port());
                     return !refuse_;
                   }};
};

TEST_F(TicklerTest, EverySessionIsTickledThreeTimesHalfASecondApart) {
  tickler_.tickle({session(40001), session(40002)});
  EXPECT_EQ(sent_, (std::vector<uint16_t>{40001, 40002})) << "the first round at once";
  timers_.advance(499ms);
  EXPECT_EQ(sent_.size(), 2u) << "sooner, Linux would not answer it (tcp_invalid_ratelimit)";
  timers_.advance(1ms);
  EXPECT_EQ(sent_.size(), 4u);
  timers_.advance(500ms);
  EXPECT_EQ(sent_.size(), 6u);
  timers_.advance(5s);
  EXPECT_EQ(sent_.size(), 6u) << "three rounds, then nothing";
  EXPECT_EQ(tickler_.counts().sessions, 2u);
  EXPECT_EQ(tickler_.counts().sent, 6u);
  EXPECT_EQ(tickler_.counts().failed, 0u);
}

TEST_F(TicklerTest, ALaterLossHasRoundsOfItsOwnAndRefusalsAreCounted) {
  tickler_.tickle({session(40001)});
  timers_.advance(200ms);
  refuse_ = true;
  tickler_.tickle({session(40002)});
  EXPECT_EQ(sent_, (std::vector<uint16_t>{40001, 40002}));
  timers_.advance(300ms);  // the first loss's second round
  EXPECT_EQ(sent_, (std::vector<uint16_t>{40001, 40002, 40001}));
  timers_.advance(200ms);  // the second loss's
  EXPECT_EQ(sent_, (std::vector<uint16_t>{40001, 40002, 40001, 40002}));
  EXPECT_EQ(tickler_.counts().sent, 1u);
  EXPECT_EQ(tickler_.counts().failed, 3u);
}

TEST_F(TicklerTest, NothingLostNothingSent) {
  tickler_.tickle({});
  timers_.advance(2s);
  EXPECT_TRUE(sent_.empty());
  EXPECT_EQ(tickler_.counts().sessions, 0u);
}

}  // namespace
}  // namespace vigil::daemon
