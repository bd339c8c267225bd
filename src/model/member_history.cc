#include "model/member_history.h"

#include <algorithm>

namespace vigil::model {
namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;
using std::chrono::minutes;

WallTime start_of(int64_t minute) { return WallTime(minutes(minute)); }

}  // namespace

int64_t minute_of(WallTime t) { return std::chrono::floor<minutes>(t.time_since_epoch()).count(); }

MinuteSample* MemberHistory::slot(int64_t minute) {
  if (newest_ == 0) newest_ = minute;
  if (minute > newest_) {
    // The minutes in between had nothing: their slots are cleared, at most the whole ring.
    const int64_t from = std::max(newest_ + 1, minute - kMinutes + 1);
    for (int64_t m = from; m <= minute; ++m) ring_[static_cast<size_t>(m % kMinutes)] = {};
    newest_ = minute;
  }
  if (minute <= newest_ - kMinutes) return nullptr;
  return &ring_[static_cast<size_t>(minute % kMinutes)];
}

void MemberHistory::record_check(WallTime at, Duration took, bool ok) {
  if (first_ == WallTime{}) first_ = at;
  // A wall clock stepped back lands in the newest minute rather than rewriting older ones.
  MinuteSample* s = slot(std::max(minute_of(at), newest_));
  const float ms = std::chrono::duration<float, std::milli>(took).count();
  s->max_ms = std::max(s->max_ms, ms);
  s->sum_ms += ms;
  if (s->checks < UINT16_MAX) ++s->checks;
  if (!ok && s->failures < UINT16_MAX) ++s->failures;
}

void MemberHistory::record_transition(WallTime at, OperatingStatus before, WallTime before_since) {
  if (first_ == WallTime{}) first_ = at;
  const int64_t now_minute = std::max(minute_of(at), newest_);
  MinuteSample* s = slot(now_minute);
  if (s->transitions < UINT16_MAX) ++s->transitions;
  if (before != OperatingStatus::kError || before_since >= at) return;
  // The down period that ends now, spread over the minutes it covered that the ring keeps.
  const int64_t from = std::max(minute_of(before_since), now_minute - kMinutes + 1);
  for (int64_t m = from; m <= now_minute; ++m) {
    const WallTime lo = std::max(before_since, start_of(m));
    const WallTime hi = std::min(at, start_of(m + 1));
    if (hi <= lo) continue;
    MinuteSample* down = slot(m);
    const auto ms = duration_cast<milliseconds>(hi - lo).count() + down->down_ms;
    down->down_ms = static_cast<uint16_t>(std::min<int64_t>(ms, 60'000));
  }
}

MinuteSample MemberHistory::minute(WallTime now, int minutes_ago) const {
  const int64_t m = minute_of(now) - minutes_ago;
  if (newest_ == 0 || m > newest_ || m <= newest_ - kMinutes || minutes_ago >= kMinutes) return {};
  return ring_[static_cast<size_t>(m % kMinutes)];
}

HourView last_hour(const MemberHistory& history, OperatingStatus status, WallTime state_since,
                   WallTime now) {
  HourView out;
  const int64_t now_minute = minute_of(now);
  const bool down_now = status == OperatingStatus::kError && state_since != WallTime{};
  for (int i = 0; i < MemberHistory::kMinutes; ++i) {
    const int ago = MemberHistory::kMinutes - 1 - i;
    const WallTime lo = start_of(now_minute - ago);
    const WallTime hi = std::min(now, start_of(now_minute - ago + 1));
    MinuteView& v = out.minutes[static_cast<size_t>(i)];
    v.known = history.since() != WallTime{} && hi > history.since();
    if (!v.known) continue;
    v.sample = history.minute(now, ago);
    // The first minute watched counts from the first record.
    v.length_ms = duration_cast<milliseconds>(hi - std::max(lo, history.since())).count();
    v.down_ms = v.sample.down_ms;
    if (down_now && hi > state_since) {
      v.down_ms += duration_cast<milliseconds>(hi - std::max(lo, state_since)).count();
    }
    v.down_ms = std::min(v.down_ms, v.length_ms);
    out.transitions += v.sample.transitions;
    out.down_ms += v.down_ms;
    out.max_ms = std::max(out.max_ms, v.sample.max_ms);
  }
  return out;
}

}  // namespace vigil::model
