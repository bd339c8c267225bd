// ManualClock, ManualWallClock: a Clock and a WallClock that move only when a test tells them to.
// Single-threaded, for unit tests.
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

class ManualWallClock final : public WallClock {
 public:
  WallTime now() const override { return now_; }
  void advance(Duration d) { now_ += std::chrono::duration_cast<WallTime::duration>(d); }

 private:
  WallTime now_{std::chrono::seconds(1'800'000'000)};  // 2027-01-15, far from the epoch
};

}  // namespace vigil::testing
