// Clock: the one source of time for logic that must be testable without sleeping (health
// scheduling, thresholds, timeouts). Production code uses SteadyClock; tests use
// testing/manual_clock.h and advance it. WallClock is its twin for the time of day (what the
// status shows: state_since, last checks), never for intervals. Implementations must be safe to
// call from one thread.
#pragma once

#include <chrono>

namespace vigil {

using Duration = std::chrono::nanoseconds;
using TimePoint = std::chrono::steady_clock::time_point;
using WallTime = std::chrono::system_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
};

class SteadyClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::steady_clock::now(); }
};

class WallClock {
 public:
  virtual ~WallClock() = default;
  virtual WallTime now() const = 0;
};

class SystemClock final : public WallClock {
 public:
  WallTime now() const override { return std::chrono::system_clock::now(); }
};

}  // namespace vigil
