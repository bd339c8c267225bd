// One member's last hour, a minute at a time: how long its checks took, how many failed, its
// status changes and its time down (ERROR), for the status page's sparklines, flap count and
// downtime. A fixed ring of 60 minutes (about 1 KiB a member whatever the check interval), kept
// by the control thread beside CheckStats and copied into MemberView. Plain values; the
// control thread writes it, a copy may go to any thread.
#pragma once

#include <array>
#include <cstdint>

#include "base/clock.h"
#include "model/admin_override.h"
#include "model/status.h"

namespace vigil::model {

struct MinuteSample {
  float max_ms = 0;  // the slowest check of the minute
  float sum_ms = 0;
  uint16_t checks = 0;
  uint16_t failures = 0;
  uint16_t transitions = 0;
  uint16_t down_ms = 0;  // of down periods that ended; the one still running is the view's
  bool operator==(const MinuteSample&) const = default;
};

class MemberHistory {
 public:
  static constexpr int kMinutes = 60;

  void record_check(WallTime at, Duration took, bool ok);
  // The member's status changed at `at` from `before`, which it had held since `before_since`.
  void record_transition(WallTime at, OperatingStatus before, WallTime before_since);

  // The minute `minutes_ago` minutes before `now`'s (0: `now`'s own, still running); an empty
  // sample for one older than the ring or before the first record.
  MinuteSample minute(WallTime now, int minutes_ago) const;
  // The first record's time: nothing is known of the minutes before. Epoch: nothing recorded.
  WallTime since() const { return first_; }

  bool operator==(const MemberHistory&) const = default;

 private:
  MinuteSample* slot(int64_t minute);  // null: older than the ring keeps

  std::array<MinuteSample, kMinutes> ring_{};
  int64_t newest_ = 0;  // minutes since the epoch of the newest slot; 0: none yet
  WallTime first_{};
};

// Minutes since the epoch.
int64_t minute_of(WallTime t);

// One minute of the last hour as the status page draws it: the ring's sample plus the part of a
// down period still running (status ERROR since `state_since`).
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

HourView last_hour(const MemberHistory& history, OperatingStatus status, WallTime state_since,
                   WallTime now);

}  // namespace vigil::model
