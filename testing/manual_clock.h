// ManualClock: a Clock that moves only when a test tells it to. Single-threaded, for unit tests.
#pragma once

#include "base/clock.h"

namespace vigil::testing {

class ManualClock final : public Clock {
 public:
  TimePoint now() const override { return now_; }
  void advance(Duration d) { now_ += d; }

 private:
  TimePoint now_{std::chrono::hours(1)};  // not zero, so "never" and "now" differ
};

}  // namespace vigil::testing
