// The checker tests' fixture: a HealthChecker on a manual clock whose probes run real I/O on
// loopback (health_test only).
#pragma once

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "health/checker.h"
#include "testing/manual_clock.h"
#include "testing/manual_timer.h"
#include "testing/run_until.h"

namespace vigil::health {

using namespace std::chrono_literals;

// Checks run on a manual clock: a test advances it to make checks due, then runs the io_context
// until their results arrived (the probes' I/O is real, on loopback). Nothing sleeps.
class CheckerTest : public ::testing::Test {
 protected:
  // Enough for the checks "at once": first checks, spaced 100 µs apart, and check_now(), within
  // the checker's 2 ms wakeup quantum.
  static constexpr Duration kSoon = 10ms;
  // Past the next check of a 50 ms interval, jitter included.
  static constexpr Duration kNextCheck = 60ms;

  Target http_target(const std::string& id, uint16_t port) {
    Target t{.member_id = id, .address = "127.0.0.1", .port = port};
    t.monitor.type = model::MonitorType::kHttp;
    t.monitor.interval = 50ms;
    t.monitor.fast_interval = 20ms;
    t.monitor.timeout = 1s;
    t.monitor.healthy_threshold = 2;
    t.monitor.unhealthy_threshold = 3;
    return t;
  }

  // Advances the clock by `by`, then runs the io_context until `results` events have arrived in
  // all; false if they don't within 5 s of real time.
  bool advance_until(Duration by, size_t results) {
    timers_.advance(by);
    return vigil::testing::run_until(io_, [&] { return events_.size() >= results; });
  }

  // After checks were made due and the test expects none to report: whatever the probes' I/O has
  // ready runs, so that a result that should not come would.
  void settle() { vigil::testing::run_ready(io_); }

  boost::asio::io_context io_;
  vigil::testing::ManualClock clock_;
  vigil::testing::ManualTimerSource timers_{clock_};
  std::vector<Event> events_;
  std::set<std::string, std::less<>> ids_;   // events_ outlive their member: the ids they name
  std::function<void(const Event&)> react_;  // what the test does on each event
  HealthChecker checker_{io_, clock_, timers_,
                         [this](const Event& e) {
                           Event copy = e;
                           copy.member_id = *ids_.emplace(e.member_id).first;
                           events_.push_back(copy);
                           if (react_) react_(e);
                         },
                         7};
};

}  // namespace vigil::health
