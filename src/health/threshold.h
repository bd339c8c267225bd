// Threshold: the rise/fall state of one member's health checks (HAProxy's rise/fall, Octavia's
// healthy/unhealthy thresholds). Pure logic with no time; owned by the control thread's
// HealthChecker, one per member. Not thread-safe.
#pragma once

#include "model/status.h"

namespace vigil::health {

class Threshold {
 public:
  // Thresholds below 1 are taken as 1: a member must be able to change state.
  Threshold(int healthy_threshold, int unhealthy_threshold);

  // Records one check result; returns true when health() changed. The first result decides at
  // once (there is no history to smooth at start-up); afterwards kUp needs `unhealthy_threshold`
  // consecutive failures to go kDown and kDown needs `healthy_threshold` consecutive successes.
  bool record(bool ok);
  // Takes over another process's state (an upgrade): its health and counters, as if this
  // threshold had recorded the results itself.
  void resume(model::Health health, int successes, int failures);

  model::Health health() const { return health_; }
  int consecutive_successes() const { return successes_; }
  int consecutive_failures() const { return failures_; }

  // True while health is not settled: still unchecked, or the last result disagrees with the
  // current health (a change is under way). The scheduler then checks at the fast interval.
  bool transitioning() const;

 private:
  int rise_;
  int fall_;
  model::Health health_ = model::Health::kUnchecked;
  int successes_ = 0;
  int failures_ = 0;
};

}  // namespace vigil::health
