// What an event does to one pool: member statuses and their transitions, sessions to close, the
// rotation, slow-start weights and the snapshot for the workers. Pure (no I/O, no logging; the
// caller passes the time); ControlPlane carries the returned changes out. Control thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "daemon/runtime.h"
#include "health/checker.h"
#include "model/status.h"
#include "proxy/snapshot.h"

namespace vigil::daemon {

// The moment an event is handled.
struct PoolContext {
  TimePoint now;              // steady clock: slow start counts from it
  model::WallTime wall;       // system clock: state_since, shown in the status
  uint64_t next_version = 1;  // the version a new snapshot takes (versions are daemon-wide)
};

struct MemberTransition {
  size_t member = 0;  // index in PoolRuntime::members
  model::OperatingStatus before = model::OperatingStatus::kOffline;
  model::OperatingStatus after = model::OperatingStatus::kOffline;
  std::string line;  // transition_line(): for the log and the API's recent transitions
};

enum class CloseReason {
  kSilent,  // a connect and then a check got no answer: its sessions are as good as dead
  kDown,    // went ERROR without answering its last check (shutdown_sessions_on_down)
  kMaint,   // an operator put it in maintenance (AdminState::kMaint)
};

struct SessionClose {
  size_t member = 0;  // index in PoolRuntime::members
  CloseReason reason = CloseReason::kDown;
};

enum class PoolEvent {
  kFailOpenStarted,  // no member is usable: routing to every enabled one that takes connections
  kFailOpenEnded,
  kNoCandidates,  // some member could take connections and now none can
};

struct PoolChanges {
  std::vector<MemberTransition> transitions;  // in member order
  std::vector<SessionClose> closes;           // in the order they were decided
  std::vector<PoolEvent> events;
  // With kFailOpenStarted: the one reason every member fails with (`HTTP 500 "[-]etcd failed"`),
  // when they all fail alike (common mode); empty otherwise.
  std::string common_reason;
  // Slow start: a member in rotation is below its full weight; recompute() again then.
  std::optional<TimePoint> reweigh_at;
  // The pool's new snapshot, also stored in PoolRuntime::snapshot; null when what workers need to
  // know did not change.
  proxy::PoolSnapshotPtr snapshot;
};

// How often a ramping member's weight is raised.
inline constexpr Duration kReweighEvery = std::chrono::milliseconds(500);

// Up, but answering its checks with a failure: no new connections from the first such answer,
// established ones continue. A server that announces its graceful shutdown ([-]shutdown) stays
// draining until it stops answering; any other failure goes ERROR by the thresholds.
bool draining_of(const PoolRuntime& pool, const MemberRuntime& m);
model::OperatingStatus member_status_of(const PoolRuntime& pool, const MemberRuntime& m);
// The weight the member runs with: an operator's override, else the config's.
int weight_of(const MemberRuntime& m);
// The status the member's health alone gives it: member_status_of() without the operator's
// override and without weight 0 (a drain by weight).
model::OperatingStatus health_status_of(const PoolRuntime& pool, const MemberRuntime& m);

// Recomputes every member's status, the pool's status and rotation, and the snapshot.
// `fresh`: the pool was just created; the statuses it starts with are no transitions.
PoolChanges recompute(PoolRuntime& pool, const PoolContext& at, bool fresh = false);

// A member's health changed while its status does not show it: drained (also by weight 0) or in
// maintenance, it stays DRAINING or OFFLINE whatever its checks say. The operator who made it so
// still needs to know that it died, or came back, before making it ready again.
struct HiddenHealthChange {
  model::Health health = model::Health::kUnchecked;                 // after the result
  model::OperatingStatus keeps = model::OperatingStatus::kOffline;  // DRAINING or OFFLINE
  std::string hidden_by;  // "admin drain, set by CLI", "weight 0 in the config"
  std::string line;       // health_line()
};

// What recording one check result calls for.
struct CheckRecorded {
  bool recompute = false;       // the pool's statuses or rotation may have changed
  bool close_sessions = false;  // a silent suspect's check got no answer either (kSilent)
  std::optional<HiddenHealthChange> hidden;
};

// Records a check result of `pool.members[member]` and nothing else: a caller that takes a burst
// of results (a cold start: every member's first check at once) recomputes the pool once for all
// of them. Requires: member < pool.members.size().
CheckRecorded record_check_of(PoolRuntime& pool, size_t member, const health::Event& event,
                              const PoolContext& at);

// Records a check result of `pool.members[member]`, then recomputes the pool unless nothing but
// the member's own record changed (the common case: thousands of results a second).
// Requires: member < pool.members.size().
PoolChanges apply_check(PoolRuntime& pool, size_t member, const health::Event& event,
                        const PoolContext& at);

// A worker's connect to `pool.members[member]` failed (`silent`: no answer at all). None when
// that changes nothing (record_connect_failure()). Requires: member < pool.members.size().
std::optional<PoolChanges> apply_connect_failure(PoolRuntime& pool, size_t member, bool silent,
                                                 const PoolContext& at);

// An operator set (or, with none, cleared) `pool.members[member]`'s override; `by` says who, for
// the transition line. Entering maintenance closes the member's sessions (kMaint).
// Requires: member < pool.members.size().
PoolChanges apply_override(PoolRuntime& pool, size_t member,
                           std::optional<model::AdminOverride> next, std::string_view by,
                           const PoolContext& at);

// The slow-start tick: recompute() for a pool with slow start, nothing otherwise.
PoolChanges reweigh(PoolRuntime& pool, const PoolContext& at);

}  // namespace vigil::daemon
