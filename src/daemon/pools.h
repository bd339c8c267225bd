// Pools: the running pools and their members, and what health does to them. It carries out what
// pool_state decides of check results, failed connects, suspects and overrides (transition logs,
// session closes, the slow-start ramp, new snapshots published to the workers), adopts the pools
// of each apply, finds members by id and by check tag, looks host names up and resumes the health
// an upgrade handed over. Owned by the ControlPlane, which wires it to the checker and the
// workers (pool_seams.h); control thread only.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/error.h"
#include "base/string_map.h"
#include "base/timer.h"
#include "daemon/fd_budget.h"
#include "daemon/health_handover.h"
#include "daemon/pool_seams.h"
#include "daemon/pool_state.h"
#include "daemon/runtime.h"
#include "model/config.h"
#include "model/status_tree.h"
#include "net/resolver.h"
#include "proxy/snapshot.h"

namespace vigil::admin {
class ObjectStore;
}

namespace vigil::daemon {

class Pools {
 public:
  using PoolMap = std::unordered_map<std::string, std::unique_ptr<PoolRuntime>>;  // by id
  // Runs a function on the control thread once this turn of its loop is over (boost::asio::post).
  using Post = std::function<void(std::function<void()>)>;

  // Requires: every argument outlives this; `timers` runs on `clock`. `store` holds the
  // operators' overrides.
  Pools(const Clock& clock, TimerSource& timers, const WallClock& wall, CheckTargets& checks,
        PoolSink& sink, admin::ObjectStore& store, Post post);
  Pools(const Pools&) = delete;
  Pools& operator=(const Pools&) = delete;

  // Host names are looked up from now on, by a thread of its own (names.cc); until then members
  // given by name wait. Unit tests give addresses and do without.
  void start_names();
  // For good: no event changes anything after it, the timers and the lookups stop.
  void stop();

  // What adopt() changed: the index, the checks and the name lookups are brought up to date for
  // these pools only, so that a write to one pool costs what that pool costs, however many
  // members the others have.
  struct Changed {
    std::vector<PoolRuntime*> pools;        // new or changed: their members were made anew
    std::vector<std::string> gone_members;  // the ids the changed and removed pools had before
  };
  // The first `kept` of `lbs` run on as they are; the pools of the others replace those of
  // `replaced` (all, on a reload). A pool whose config and members are unchanged is kept as it
  // runs; the others are adopted anew, their members keeping health and sessions when their
  // address stays, and recomputed (pools_adopt.cc).
  Changed adopt(const std::vector<model::Config*>& lbs, size_t kept,
                const std::vector<const LoadBalancerRuntime*>& replaced);
  // After adopt(): the overrides of members gone from every pool leave the store.
  void drop_stale_overrides();
  // After the workers have the new slots: the checker and the name lookups take the changed pools.
  void start_checks(const Changed& changed);

  void on_check(const health::Event& event);
  // The check started to confirm a silence got no byte in time (confirm_silence()).
  void on_silence(const health::Silence& silence);
  void on_connect_failure(const proxy::ConnectFailure& failure);
  void on_suspect(const proxy::MemberSuspect& suspect);
  // An operator's override of a member: saved in the store first, then carried out.
  Result<void> set_override(const std::string& member_id, std::optional<model::AdminOverride> next,
                            std::string_view by);

  // The health an upgrade handed over (health_handover.h): applied to the members the next
  // adopt() makes, then dropped (upgrade_health.cc).
  void resume(std::vector<CarriedHealth> carried);
  // What this process hands on: every checked member's health.
  std::vector<CarriedHealth> health_to_hand_over() const;

  // Every enabled member of a monitored pool has had its first check's result.
  bool first_checks_done() const;
  // How long the first checks may take at most: the longest monitor timeout, and some slack.
  Duration first_checks_bound() const;

  const PoolMap& all() const { return pools_; }
  const MemberRuntime* member(std::string_view id) const;
  // The page's recent transitions, the oldest first, at most kMaxTransitions.
  static constexpr size_t kMaxTransitions = 100;
  const std::deque<model::Transition>& transitions() const { return transitions_; }
  // Those a previous process kept (transition_file.h), before any of this one's.
  void restore_transitions(std::vector<model::Transition> kept);
  // Called after each change of transitions() (TransitionFile::changed()).
  void on_transitions_changed(std::function<void()> changed) {
    transitions_changed_ = std::move(changed);
  }
  // The slots set since the last publish, for the workers (ControlPlane::push_to_workers()).
  proxy::PoolSlots slot_changes();
  // What the checks add to the descriptor needs, summed over every pool.
  FdNeeds check_needs() const;

 private:
  using MemberRef = std::pair<PoolRuntime*, size_t>;  // a pool and the index of its member
  std::unique_ptr<PoolRuntime> adopt_pool(const model::Config& lb, const model::Pool& p,
                                          std::unique_ptr<PoolRuntime> running, Changed& out);
  MemberRuntime new_member(const model::Member& m) const;
  static bool same_order(const std::vector<MemberRuntime>& running,
                         const std::vector<model::Member>& given);
  void adopt_member(MemberRuntime& member, const model::Member& m, const model::Pool& p,
                    bool monitor_changed) const;
  void adopt_overrides(PoolRuntime& pool) const;
  void forget_members(PoolRuntime& pool, Changed& out);
  uint32_t take_tag(MemberRef member);
  void update_checks(const Changed& changed);
  void resolve_names();  // of every pool (the retry timer)
  void resolve_names(const std::vector<PoolRuntime*>& pools);
  void on_resolved(const std::string& member_id, const std::string& host, uint16_t port,
                   Result<std::vector<net::SocketAddress>> addresses);
  void resume_health(MemberRuntime& m, const model::Pool& pool) const;
  std::optional<health::Target::Resumed> resumed_check(const MemberRuntime& m,
                                                       const model::Pool& pool) const;
  void recompute_soon(const PoolRuntime& pool);
  void recompute_pending();
  PoolContext context() const;
  // Logs, closes sessions, arms the ramp and fills the pool's slot as pool_state decided. True
  // when the pool's snapshot changed (publish() then sends it to the workers).
  bool carry_out(const PoolRuntime& pool, const PoolChanges& changes);
  void publish();
  // slots_[slot] = pool, to be sent to the workers by the next publish() or slot_changes().
  void set_slot(uint32_t slot, proxy::PoolSnapshotPtr pool);
  uint32_t new_slot();
  // `silent`: for a silence confirmed (CloseReason::kSilent), before any transition.
  void close_sessions(const PoolRuntime& pool, const MemberRuntime& member, bool silent = false);
  void record_transition(const PoolRuntime& pool, const MemberTransition& t);
  // A line for the page's "recent transitions" (the log has it already).
  void remember(const PoolRuntime& pool, const MemberRuntime& member, model::WallTime at,
                std::string line);
  void schedule_ramp(TimePoint at);
  void reweigh_all();  // the ramp's tick

  const Clock& clock_;
  const WallClock& wall_;
  CheckTargets& checks_;
  PoolSink& sink_;
  admin::ObjectStore& store_;
  Post post_;
  PoolMap pools_;
  std::vector<proxy::PoolSnapshotPtr> slots_;  // what workers index by PoolRuntime::slot
  // The slots set since the workers last heard (set_slot()); sent by slot_changes().
  std::vector<uint32_t> unsent_slots_;
  StringMap<MemberRef> index_;  // by member id
  // Checked members by health::Target::tag (update_checks() numbers them): a result finds its
  // member without hashing its id, ten thousand times a second. A tag freed by a changed pool
  // ({nullptr, 0}) is in free_tags_ until another member takes it.
  std::vector<MemberRef> checked_;
  std::vector<uint32_t> free_tags_;
  std::vector<std::string> to_recompute_;  // pools whose check results await recompute_pending()
  bool recompute_posted_ = false;
  // The sums of what the checks need of descriptors (checked members...), kept as adopt_pool()
  // changes them.
  FdNeeds check_sums_;
  std::deque<model::Transition> transitions_;
  std::function<void()> transitions_changed_;
  uint64_t snapshot_version_ = 0;
  std::unordered_map<std::string, CarriedHealth> carried_;  // by member id; until start_checks()
  std::unique_ptr<Timer> ramp_;                             // re-weighs members in slow start
  std::unique_ptr<net::Resolver> resolver_;
  std::unique_ptr<Timer> names_retry_;
  bool stopped_ = false;
};

}  // namespace vigil::daemon
