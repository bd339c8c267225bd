#include "model/member_history.h"

#include <algorithm>
#include <bit>

namespace vigil::model {
namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;
using std::chrono::minutes;

WallTime start_of(int64_t minute) { return WallTime(minutes(minute)); }

constexpr int kMantissaBits = 15;
constexpr uint64_t kLargestCode = (uint64_t{1} << 20) - 1;

// Microseconds below 2^15 as they are; above, the top 16 bits rounded to the nearest, with the
// shift as the exponent: codes rise with the time, so the larger code is the slower check.
uint64_t encode_us(Duration took) {
  const int64_t signed_us =
      (std::chrono::duration_cast<std::chrono::nanoseconds>(took).count() + 500) / 1000;
  const auto us = static_cast<uint64_t>(std::max<int64_t>(signed_us, 0));
  if (us < (uint64_t{1} << kMantissaBits)) return us;
  int shift = std::bit_width(us) - (kMantissaBits + 1);
  uint64_t top = (us + (uint64_t{1} << shift >> 1)) >> shift;
  if (top >> (kMantissaBits + 1)) top >>= 1, ++shift;  // rounded up into the next power of two
  const uint64_t code =
      (static_cast<uint64_t>(shift + 1) << kMantissaBits) | (top - (uint64_t{1} << kMantissaBits));
  return std::min(code, kLargestCode);
}

float decode_ms(uint64_t code) {
  const uint64_t exponent = code >> kMantissaBits;
  const uint64_t mantissa = code & ((uint64_t{1} << kMantissaBits) - 1);
  const uint64_t us =
      exponent == 0 ? mantissa : ((uint64_t{1} << kMantissaBits) | mantissa) << (exponent - 1);
  return static_cast<float>(static_cast<double>(us) / 1000);
}

MinuteSample unpack(const PackedMinute& p) {
  return {.max_ms = decode_ms(p.max_code),
          .checks = static_cast<uint16_t>(p.checks),
          .failures = static_cast<uint16_t>(p.failures),
          .transitions = static_cast<uint16_t>(p.transitions),
          .down_ms = static_cast<uint16_t>(p.down_ms)};
}

}  // namespace

int64_t minute_of(WallTime t) { return std::chrono::floor<minutes>(t.time_since_epoch()).count(); }

PackedMinute* MemberHistory::slot(int64_t minute) {
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
  PackedMinute* s = slot(std::max(minute_of(at), newest_));
  s->max_code = std::max<uint64_t>(s->max_code, encode_us(took));
  if (s->checks < MinuteSample::kMaxChecks) ++s->checks;
  if (!ok && s->failures < MinuteSample::kMaxChecks) ++s->failures;
}

void MemberHistory::record_transition(WallTime at) {
  if (first_ == WallTime{}) first_ = at;
  PackedMinute* s = slot(std::max(minute_of(at), newest_));
  if (s->transitions < MinuteSample::kMaxTransitions) ++s->transitions;
}

void MemberHistory::record_down(WallTime from, WallTime to) {
  if (first_ == WallTime{}) first_ = to;
  const int64_t now_minute = std::max(minute_of(to), newest_);
  slot(now_minute);  // the ring moves on to `to`'s minute, as a transition at `to` would move it
  if (from >= to) return;
  // Only the minutes the ring keeps.
  const int64_t first = std::max(minute_of(from), now_minute - kMinutes + 1);
  for (int64_t m = first; m <= now_minute; ++m) {
    const WallTime lo = std::max(from, start_of(m));
    const WallTime hi = std::min(to, start_of(m + 1));
    if (hi <= lo) continue;
    PackedMinute* down = slot(m);
    const auto ms =
        duration_cast<milliseconds>(hi - lo).count() + static_cast<int64_t>(down->down_ms);
    down->down_ms = static_cast<uint64_t>(std::min<int64_t>(ms, 60'000));
  }
}

MinuteSample MemberHistory::minute(WallTime now, int minutes_ago) const {
  const int64_t m = minute_of(now) - minutes_ago;
  if (newest_ == 0 || m > newest_ || m <= newest_ - kMinutes || minutes_ago >= kMinutes) return {};
  return unpack(ring_[static_cast<size_t>(m % kMinutes)]);
}

HourView last_hour(const MemberHistory& history, OperatingStatus status, WallTime since,
                   WallTime now) {
  HourView out;
  const int64_t now_minute = minute_of(now);
  const bool down_now = status == OperatingStatus::kError && since != WallTime{};
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
    if (down_now && hi > since) {
      v.down_ms += duration_cast<milliseconds>(hi - std::max(lo, since)).count();
    }
    v.down_ms = std::min(v.down_ms, v.length_ms);
    out.transitions += v.sample.transitions;
    out.down_ms += v.down_ms;
    out.max_ms = std::max(out.max_ms, v.sample.max_ms);
  }
  return out;
}

}  // namespace vigil::model
