// Counters of one member's health checks: durations as a histogram, failures, state transitions.
// Kept by the control thread where results arrive (daemon/member_health.cc, pool_state.cc) and
// copied into MemberView for metrics and the API. Plain values: control thread only.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>

#include "base/clock.h"

namespace vigil::model {

// Upper bounds in seconds. Checks on a LAN answer in a millisecond or two; a timeout sits at the
// monitor's timeout (seconds), so the buckets are dense at the low end and end at 5 s.
inline constexpr std::array<double, 12> kCheckDurationBuckets = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};

struct CheckStats {
  // Per bucket, not cumulative (a sample adds to one bucket; the exposition sums them). The last
  // slot holds the checks slower than the last bound (+Inf).
  std::array<uint64_t, kCheckDurationBuckets.size() + 1> duration_buckets{};
  double duration_sum_seconds = 0;
  uint64_t checks = 0;          // results that say something of the member (not local_failures)
  uint64_t failures = 0;        // of those, the ones not ok
  uint64_t local_failures = 0;  // checks we could not make here (Outcome::kLocalError)
  uint64_t transitions = 0;     // operating status changes

  void record(Duration d, bool ok) {
    const double s = std::chrono::duration<double>(d).count();
    size_t i = 0;
    while (i < kCheckDurationBuckets.size() && s > kCheckDurationBuckets[i]) ++i;
    ++duration_buckets[i];
    duration_sum_seconds += s;
    ++checks;
    if (!ok) ++failures;
  }
};

}  // namespace vigil::model
