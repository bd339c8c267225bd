// One member's last hour, a minute at a time: how long its checks took, how many failed, its
// status changes and its time down (its health's ERROR, whatever an operator's drain or
// maintenance shows), for the status page's sparklines, flap count and downtime. A fixed ring of 60
// minutes of 8 bytes each (496 bytes a member whatever the check interval), kept by the control
// thread beside CheckStats and copied into MemberView. Plain values; the control thread writes it,
// a copy may go to any thread.
#pragma once

#include <array>
#include <cstdint>

#include "base/clock.h"
#include "model/admin_override.h"
#include "model/status.h"

namespace vigil::model {

// One minute as the status page reads it. The counts saturate (at kMaxChecks and
// kMaxTransitions) where the page draws no difference: a minute with checks, with failures.
struct MinuteSample {
  static constexpr uint16_t kMaxChecks = 255;        // checks and failures
  static constexpr uint16_t kMaxTransitions = 4095;  // one every 15 ms for the whole minute

  float max_ms = 0;  // the slowest check of the minute, to 1 µs below 32 ms, else to 1 in 65,536
  uint16_t checks = 0;
  uint16_t failures = 0;
  uint16_t transitions = 0;
  uint16_t down_ms = 0;  // of down periods that ended; the one still running is the view's
  bool operator==(const MinuteSample&) const = default;
};

// A MinuteSample as the ring keeps it: 30,000 members keep 1.8 million of them. The slowest
// check is in microseconds as a 5-bit exponent and a 15-bit mantissa (a 24-hour timeout fits),
// and a larger code is a slower check, so the ring compares codes and never decodes to record.
struct PackedMinute {
  uint64_t max_code : 20 = 0;
  uint64_t down_ms : 16 = 0;  // at most 60,000
  uint64_t transitions : 12 = 0;
  uint64_t checks : 8 = 0;
  uint64_t failures : 8 = 0;
  bool operator==(const PackedMinute&) const = default;
};
static_assert(sizeof(PackedMinute) == 8);

class MemberHistory {
 public:
  static constexpr int kMinutes = 60;

  void record_check(WallTime at, Duration took, bool ok);
  // The member's status changed at `at` (a flap).
  void record_transition(WallTime at);
  // A down period ended at `to`, which began at `from`: spread over the minutes it covered. Apart
  // from record_transition(): a drained member goes down and up while its status stays DRAINING.
  void record_down(WallTime from, WallTime to);

  // The minute `minutes_ago` minutes before `now`'s (0: `now`'s own, still running); an empty
  // sample for one older than the ring or before the first record.
  MinuteSample minute(WallTime now, int minutes_ago) const;
  // The first record's time: nothing is known of the minutes before. Epoch: nothing recorded.
  WallTime since() const { return first_; }

  bool operator==(const MemberHistory&) const = default;

 private:
  PackedMinute* slot(int64_t minute);  // null: older than the ring keeps

  std::array<PackedMinute, kMinutes> ring_{};
  int64_t newest_ = 0;  // minutes since the epoch of the newest slot; 0: none yet
  WallTime first_{};
};

// Minutes since the epoch.
int64_t minute_of(WallTime t);

// One minute of the last hour as the status page draws it: the ring's sample plus the part of a
// down period still running (ERROR since `since`).
struct MinuteView {
  bool known = false;  // the member was watched during the minute
  MinuteSample sample;
  int64_t down_ms = 0;    // closed and running down periods
  int64_t length_ms = 0;  // 60000, or what has passed of the current minute
};

struct HourView {
  std::array<MinuteView, MemberHistory::kMinutes> minutes;  // the oldest first, now's last
  int64_t transitions = 0;                                  // flaps in the hour
  int64_t down_ms = 0;                                      // downtime in the hour
  float max_ms = 0;                                         // the slowest check in the hour
};

// `status` and `since`: the member's health status (MemberView::health_status) and since when it
// has held it; ERROR is a down period still running.
HourView last_hour(const MemberHistory& history, OperatingStatus status, WallTime since,
                   WallTime now);

}  // namespace vigil::model
