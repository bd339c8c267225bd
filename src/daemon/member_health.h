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

// Requires: record_connect_failure(m, ..., silent = true) just returned true, at `now`, for a
// connect or first flight that waited `waited` unanswered. True when a check of `m` got no answer
// within that wait: the second signal is in already (a check in flight when the fault came, or
// started by a suspect report), so its sessions close now rather than after the check started
// now; that check then decides nothing more about them.
bool silence_confirmed(MemberRuntime& m, TimePoint now, Duration waited,
                       bool shutdown_sessions_on_down);

// A worker's first flight to `m` has waited unanswered for Session::suspect_after(): not a
// failure (a slow member answers later), so nothing is recorded and `m` stays in rotation. True
// when a check should start now, so that its answer, or its timeout, is in (or nearly) when the
// first-byte timeout reports `m` silent: a silent session and a check without an answer are the
// two signals that close its sessions (record_check). False when it has no monitor, or is out
// already (its failure started a check).
bool check_suspect(const MemberRuntime& m, bool has_monitor);

// How long the check started to confirm a silence may go without a byte from the member before
// it is the second signal (health::HealthChecker::confirm_silence): until the data plane's own
// wait runs out (`limit`, of which `waited` has passed), so that both signals are in when the
// first flight or connect fails, not a whole check timeout later; and at least half of it, so that
// a check started once the wait is over has a silence of its own to show (500 ms at the default
// first_byte_timeout, hundreds of times a live member's TLS handshake). Never past the check's own
// `timeout`, which reports the same silence anyway.
Duration confirm_window(Duration limit, Duration waited, Duration timeout);

// A check started to confirm a silence had no byte from the member within its window, at `now`:
// the second signal, as a check timing out is (record_check). True when `m`'s sessions close now:
// a silent connect or first flight is its first signal already.
bool record_silence(MemberRuntime& m, TimePoint now, bool shutdown_sessions_on_down);

}  // namespace vigil::daemon
