// ManualTimerSource: timers on a ManualClock, fired by advance() when the clock passes their
// deadline; the twin of AsioTimerSource for unit tests. Single-threaded.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "base/timer.h"
#include "testing/manual_clock.h"

namespace vigil::testing {

class ManualTimerSource final : public TimerSource {
 public:
  // Requires: `clock` outlives this, this outlives its timers, and the clock moves only through
  // advance() below while timers are armed (ManualClock::advance() alone would fire none).
  explicit ManualTimerSource(ManualClock& clock) : clock_(clock) {}
  ManualTimerSource(const ManualTimerSource&) = delete;
  ManualTimerSource& operator=(const ManualTimerSource&) = delete;

  std::unique_ptr<Timer> create_timer(std::function<void()> on_fire) override {
    return std::make_unique<ManualTimer>(*this, std::move(on_fire));
  }

  // Moves the clock forward by `d`, stopping at each deadline on the way to fire the timers due
  // then, in deadline order (ties in the order they were armed). A timer armed at or before the
  // current time fires too: advance(0) runs what is due now. Callbacks may arm and cancel timers;
  // one armed within the span fires in this call.
  void advance(Duration d) {
    const TimePoint until = clock_.now() + d;
    while (ManualTimer* t = earliest()) {
      if (t->at_ > until) break;
      if (t->at_ > clock_.now()) clock_.advance(t->at_ - clock_.now());
      t->armed_ = false;
      t->on_fire_();
    }
    if (until > clock_.now()) clock_.advance(until - clock_.now());
  }

  // The earliest armed deadline; nullopt when no timer is armed.
  std::optional<TimePoint> next_deadline() const {
    const ManualTimer* t = earliest();
    return t != nullptr ? std::optional<TimePoint>(t->at_) : std::nullopt;
  }

 private:
  class ManualTimer final : public Timer {
   public:
    ManualTimer(ManualTimerSource& source, std::function<void()> on_fire)
        : source_(source), on_fire_(std::move(on_fire)) {
      source_.timers_.push_back(this);
    }
    ~ManualTimer() override { std::erase(source_.timers_, this); }
    ManualTimer(const ManualTimer&) = delete;
    ManualTimer& operator=(const ManualTimer&) = delete;

    void arm(TimePoint at) override {
      at_ = at;
      seq_ = ++source_.seq_;
      armed_ = true;
    }
    void cancel() override { armed_ = false; }
    bool armed() const override { return armed_; }

   private:
    friend class ManualTimerSource;
    ManualTimerSource& source_;
    std::function<void()> on_fire_;
    TimePoint at_{};
    uint64_t seq_ = 0;
    bool armed_ = false;
  };

  // A scan, not a heap: tests hold a handful of timers, and callbacks may change any of them.
  ManualTimer* earliest() const {
    ManualTimer* best = nullptr;
    for (ManualTimer* t : timers_) {
      if (!t->armed_) continue;
      if (best == nullptr || std::pair(t->at_, t->seq_) < std::pair(best->at_, best->seq_)) {
        best = t;
      }
    }
    return best;
  }

  ManualClock& clock_;
  std::vector<ManualTimer*> timers_;
  uint64_t seq_ = 0;
};

}  // namespace vigil::testing
