// What health signals do to one member's own record, apart from its pool: a check's result and
// a worker's failed connect. Pure (no I/O; the caller passes the time), so tests can feed them in
// any order, including races the checker can't be made to produce on demand. The control plane
// then recomputes the pool (statuses, rotation) when something changed. Control thread only.
#pragma once

#include <optional>

#include "base/clock.h"
#include "daemon/runtime.h"
#include "health/checker.h"
#include "model/check_result.h"

namespace vigil::daemon {

// The member answered its check at the application level: it is alive and serving, so its
// sessions are left to finish (a draining API server closes them itself).
bool answered(const std::optional<model::CheckResult>& check);

struct CheckEffects {
  bool passive_out_changed = false;  // the check ended a passive-health exclusion
  // The member was a silent suspect (a connect got no answer) and its check got none either:
  // its sessions are as good as dead.
  bool close_sessions = false;
};

// Records `event` in `m`. `now` is the steady clock's (slow start counts from it), `wall` the
// system clock's (shown in the status).
CheckEffects record_check(MemberRuntime& m, const health::Event& event, TimePoint now,
                          model::WallTime wall, bool shutdown_sessions_on_down);

// A worker's connect to `m` failed; `silent`: no answer at all (a timeout, not a refusal). Takes
// the member out of rotation until a check on a new connection passes. False when that changes
// nothing: it is out already, or it has no monitor (nothing could bring it back).
bool record_connect_failure(MemberRuntime& m, bool has_monitor, bool silent);

}  // namespace vigil::daemon
