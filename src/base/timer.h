// Timer: a one-shot timer armed at a time of the injected Clock (base/clock.h); TimerSource
// makes them. Production code uses AsioTimerSource (base/asio_timer.h), tests the manual twin in
// testing/manual_timer.h. A timer and its callback belong to the thread that runs its source.
#pragma once

#include <functional>
#include <memory>

#include "base/clock.h"

namespace vigil {

class Timer {
 public:
  virtual ~Timer() = default;  // cancels

  // The callback runs once, at `at` or as soon after as its loop gets to it (a time already
  // passed means soon), never inside arm(). Arming again replaces the pending deadline.
  virtual void arm(TimePoint at) = 0;
  // No callback follows for any earlier arm(), not even one whose time has already come.
  virtual void cancel() = 0;
  // From arm() until its callback starts or cancel().
  virtual bool armed() const = 0;
};

class TimerSource {
 public:
  virtual ~TimerSource() = default;

  // The callback may arm and cancel this timer and others; it must not destroy its own.
  virtual std::unique_ptr<Timer> create_timer(std::function<void()> on_fire) = 0;
};

}  // namespace vigil
