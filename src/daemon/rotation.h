// Which members of a pool take new connections (DESIGN.md section 4): pure logic, no time, no I/O.
// The control thread calls it after every health change and publishes the result to workers.
#pragma once

#include <span>
#include <vector>

#include "base/clock.h"
#include "model/status.h"

namespace vigil::daemon {

struct RotationInput {
  bool enabled = true;
  int weight = 1;
  bool backup = false;
  bool has_monitor = false;
  model::Health health = model::Health::kUnchecked;
  bool passive_out = false;  // a connect failed; out until a check passes
  bool draining = false;     // answers its checks with a failure: no new connections
  bool resolved = true;      // has an address to connect to
  // Takes connections as far as its checks show: false when its last check was refused or got
  // no answer at all. Fail-open never routes to such a member.
  bool takes_connections = true;
  // Its last check got no answer within its timeout (one of the ways takes_connections is false).
  bool timed_out = false;
};

struct Rotation {
  std::vector<size_t> members;  // indices into the input
  bool fail_open = false;       // no member was usable; routing to every eligible one that connects
};

// Healthy primaries; else healthy backups; else, with fail_open, every enabled member with
// weight and an address that still takes connections (not out by a failed connect, its last
// check neither refused nor unanswered: a cluster-wide /readyz failure keeps the members that
// answer, a crashed or hung one gets nothing); else none. A member is healthy when it has no
// monitor or its last verdict is up; while no member of the pool has a result yet, unchecked
// members count as healthy (vigil never refuses traffic just because it started a moment ago).
// When not one member takes connections but some only timed out (no refusal, no network error),
// fail-open routes to those: every master silent at once is likelier the checks' own trouble
// (an overloaded checker or network, k3s#10240) than every master hung, and real traffic's
// connect and first-byte timers take out, at once, any that truly does not answer.
Rotation choose_rotation(std::span<const RotationInput> members, bool fail_open);

// Weights in snapshots are scaled so that slow start can ramp even a weight of 1 smoothly.
inline constexpr int kWeightScale = 16;

// A member's share of new connections while it ramps up after coming back (slow start): from 1
// to weight * kWeightScale over `slow_start`, linearly; the full weight when slow start is off,
// over, or the member never was down (`recovered_at` zero).
int ramped_weight(int weight, Duration slow_start, TimePoint recovered_at, TimePoint now);

}  // namespace vigil::daemon
