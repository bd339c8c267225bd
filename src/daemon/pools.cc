// Pools' events: check results, silences, failed connects and suspects, overrides, and how what
// pool_state decides of them is carried out (logs, session closes, the ramp, snapshots).
#include "daemon/pools.h"

#include <algorithm>
#include <cassert>

#include "admin/octavia/object_store.h"
#include "base/log.h"
#include "daemon/event_log.h"
#include "daemon/member_health.h"

namespace vigil::daemon {
namespace {

// Keepalive for the sessions of a member that stopped answering connects: a probe after 1 s
// idle, dead after two unanswered probes a second apart.
const net::DeadPeerOptions kSuspectProbe{.keepalive_idle = std::chrono::seconds(1),
                                         .keepalive_interval = std::chrono::seconds(1),
                                         .keepalive_count = 2,
                                         .user_timeout = std::chrono::milliseconds(3000)};

}  // namespace

Pools::Pools(const Clock& clock, TimerSource& timers, const WallClock& wall, CheckTargets& checks,
             PoolSink& sink, admin::ObjectStore& store, Post post)
    : clock_(clock),
      wall_(wall),
      checks_(checks),
      sink_(sink),
      store_(store),
      post_(std::move(post)),
      ramp_(timers.create_timer([this] { reweigh_all(); })),
      names_retry_(timers.create_timer([this] { resolve_names(); })) {}

void Pools::stop() {
  stopped_ = true;
  ramp_->cancel();
  names_retry_->cancel();
  resolver_.reset();  // answers still under way are dropped
}

const MemberRuntime* Pools::member(std::string_view id) const {
  const auto it = index_.find(id);
  return it == index_.end() ? nullptr : &it->second.first->members[it->second.second];
}

Result<void> Pools::set_override(const std::string& member_id,
                                 std::optional<model::AdminOverride> next, std::string_view by) {
  auto it = index_.find(member_id);
  if (it == index_.end()) return fail("no member with id " + member_id);
  PoolRuntime& pool = *it->second.first;
  const size_t i = it->second.second;
  // Back to the file's own weight, and ready: nothing is left to override, whichever way it was
  // asked (vigil member weight, PUT .../admin, Octavia member set --weight); a later edit of the
  // file's weight then takes effect.
  if (next && next->state == model::AdminState::kReady &&
      next->weight == pool.members[i].config.weight) {
    next.reset();
  }
  if (auto saved = store_.set_override(member_id, next); !saved) return saved;
  log::info("pool {} member {}: admin {} by {}", pool.config.name, pool.members[i].config.name,
            next ? model::describe(*next) : "ready (override cleared)", by);
  if (carry_out(pool, apply_override(pool, i, std::move(next), by, context()))) publish();
  return {};
}

void Pools::on_connect_failure(const proxy::ConnectFailure& failure) {
  auto it = index_.find(failure.member_id);
  if (stopped_ || it == index_.end()) return;  // a member removed since
  PoolRuntime& pool = *it->second.first;
  const size_t index = it->second.second;
  MemberRuntime& m = pool.members[index];
  const auto changes = apply_connect_failure(pool, index, failure.silent, context());
  if (!changes) return;
  const bool confirmed = failure.silent && silence_confirmed(m, clock_.now(), failure.waited,
                                                             pool.config.shutdown_sessions_on_down);
  log::warn("pool {} member {} {}: connect failed ({}); out of rotation until a check passes",
            pool.config.name, m.config.name, m.address ? m.address->to_string() : m.config.address,
            failure.reason);
  if (failure.silent) {
    // The host did not answer at all: it may be powered off, and then its sessions hang without
    // a FIN or RST. Probe them now rather than after the normal keepalive idle time, and close
    // them if the check run now gets no answer either (on_check).
    sink_.probe_sessions(m.stats, kSuspectProbe);
  }
  if (failure.silent && !confirmed) {
    const Duration timeout = pool.config.health_monitor->timeout;  // has one: changes said so
    checks_.confirm_silence(m.id,
                            clock_.now() + confirm_window(failure.limit, failure.waited, timeout));
  } else {
    checks_.check_now(m.id);
  }
  if (confirmed) {
    // Decided before the recomputation, and carried out before what it decides (as on_check).
    carry_out(pool, {.closes = {{.member = index, .reason = CloseReason::kSilent}}});
  }
  if (carry_out(pool, *changes)) publish();
}

// Not logged: a slow member may be suspect once a second for as long as it is slow, and the
// check's result is what tells (its transition line, or nothing).
void Pools::on_suspect(const proxy::MemberSuspect& suspect) {
  auto it = index_.find(suspect.member_id);
  if (stopped_ || it == index_.end()) return;
  const PoolRuntime& pool = *it->second.first;
  const MemberRuntime& m = pool.members[it->second.second];
  if (!check_suspect(m, pool.config.health_monitor.has_value())) return;
  const Duration timeout = pool.config.health_monitor->timeout;
  checks_.confirm_silence(m.id,
                          clock_.now() + confirm_window(suspect.limit, suspect.waited, timeout));
}

// The check started to confirm a silent connect or first flight got no byte in time: the second
// signal, before the check's own timeout.
void Pools::on_silence(const health::Silence& s) {
  if (stopped_ || s.tag >= checked_.size() || checked_[s.tag].first == nullptr) return;
  PoolRuntime& pool = *checked_[s.tag].first;
  const size_t index = checked_[s.tag].second;
  if (record_silence(pool.members[index], clock_.now(), pool.config.shutdown_sessions_on_down)) {
    carry_out(pool, {.closes = {{.member = index, .reason = CloseReason::kSilent}}});
  }
}

void Pools::on_check(const health::Event& e) {
  // adopt() changes a pool's members only together with update_checks(), which gives them tags
  // anew, and the checker reports no member it no longer checks: a tag names its member. The id
  // is not compared in release builds: its bytes are one more cache miss per result.
  if (stopped_ || e.tag >= checked_.size() || checked_[e.tag].first == nullptr) return;
  const auto [pool_ptr, index] = checked_[e.tag];
  assert(index < pool_ptr->members.size() && pool_ptr->members[index].id == e.member_id);
  const CheckRecorded recorded = record_check_of(*pool_ptr, index, e, context());
  if (recorded.hidden) {
    // A drained or maintained master's reboot, as its checks see it: the page tells it too.
    log_hidden_health(*pool_ptr, pool_ptr->members[index], *recorded.hidden);
    remember(*pool_ptr, pool_ptr->members[index], wall_.now(), recorded.hidden->line);
  }
  if (recorded.close_sessions) {
    // Decided before the recomputation, and carried out before what it decides.
    carry_out(*pool_ptr, {.closes = {{.member = index, .reason = CloseReason::kSilent}}});
  }
  if (recorded.recompute) recompute_soon(*pool_ptr);
}

// A pool's recompute walks all its members: once per result, a cold start's burst of first
// results (one per member) would cost the square of the pool. Results that arrive together
// (one turn of the loop: the completions one epoll_wait returned) are recomputed together.
void Pools::recompute_soon(const PoolRuntime& pool) {
  if (std::ranges::find(to_recompute_, pool.id) == to_recompute_.end()) {
    to_recompute_.push_back(pool.id);
  }
  if (recompute_posted_) return;
  recompute_posted_ = true;
  post_([this] { recompute_pending(); });
}

void Pools::recompute_pending() {
  recompute_posted_ = false;
  const std::vector<std::string> ids = std::move(to_recompute_);
  to_recompute_.clear();
  if (stopped_) return;
  bool changed = false;
  for (const std::string& id : ids) {
    // A pool removed since needs nothing; one made anew by adopt() was recomputed already, and
    // is again here, to no effect.
    if (auto it = pools_.find(id); it != pools_.end()) {
      changed |= carry_out(*it->second, recompute(*it->second, context()));
    }
  }
  if (changed) publish();
}

PoolContext Pools::context() const {
  return {.now = clock_.now(), .wall = wall_.now(), .next_version = snapshot_version_ + 1};
}

bool Pools::carry_out(const PoolRuntime& pool, const PoolChanges& changes) {
  for (const SessionClose& c : changes.closes) {
    if (c.reason != CloseReason::kSilent) continue;
    log::warn("pool {} member {}: no answer to a connect nor to a check; closing its sessions",
              pool.config.name, pool.members[c.member].config.name);
    close_sessions(pool, pool.members[c.member], /*silent=*/true);
  }
  for (const MemberTransition& t : changes.transitions) record_transition(pool, t);
  for (const SessionClose& c : changes.closes) {
    if (c.reason == CloseReason::kMaint) {
      log::info("pool {} member {}: in maintenance; closing its sessions", pool.config.name,
                pool.members[c.member].config.name);
    }
    if (c.reason != CloseReason::kSilent) close_sessions(pool, pool.members[c.member]);
  }
  for (PoolEvent e : changes.events) {
    switch (e) {
      case PoolEvent::kFailOpenStarted:
        if (!changes.common_reason.empty()) {
          log::error(
              "pool {}: every member fails its check alike ({}): the cluster's problem, not the "
              "members'; failing open to the {} that take connections",
              pool.config.name, changes.common_reason, pool.snapshot->candidates.size());
        } else {
          log::error(
              "pool {}: no member is usable; failing open: routing to the {} enabled members "
              "that take connections",
              pool.config.name, pool.snapshot->candidates.size());
        }
        break;
      case PoolEvent::kFailOpenEnded:
        log::info("pool {}: a member is usable again; no longer failing open", pool.config.name);
        break;
      case PoolEvent::kNoCandidates:
        log::error("pool {}: no member can take connections; new connections are closed",
                   pool.config.name);
        break;
    }
  }
  if (changes.reweigh_at) schedule_ramp(*changes.reweigh_at);
  if (!changes.snapshot) return false;
  snapshot_version_ = changes.snapshot->version;
  set_slot(pool.slot, changes.snapshot);
  return true;
}

// While a member is in slow start, its weight is raised a step every half second.
void Pools::schedule_ramp(TimePoint at) {
  if (ramp_->armed() || stopped_) return;
  ramp_->arm(at);
}

void Pools::reweigh_all() {
  if (stopped_) return;
  bool changed = false;
  for (auto& [id, pool] : pools_) {
    changed |= carry_out(*pool, reweigh(*pool, context()));
  }
  if (changed) publish();
}

void Pools::publish() { sink_.publish(slot_changes()); }

void Pools::set_slot(uint32_t slot, proxy::PoolSnapshotPtr pool) {
  slots_[slot] = std::move(pool);
  unsent_slots_.push_back(slot);
}

uint32_t Pools::new_slot() {
  slots_.emplace_back();
  unsent_slots_.push_back(static_cast<uint32_t>(slots_.size() - 1));
  return static_cast<uint32_t>(slots_.size() - 1);
}

proxy::PoolSlots Pools::slot_changes() {
  std::ranges::sort(unsent_slots_);
  const auto [end, last] = std::ranges::unique(unsent_slots_);
  unsent_slots_.erase(end, last);
  proxy::PoolSlots out{.size = slots_.size()};
  out.set.reserve(unsent_slots_.size());
  for (uint32_t slot : unsent_slots_) out.set.emplace_back(slot, slots_[slot]);
  unsent_slots_.clear();
  return out;
}

// Closes the member's sessions on every worker so that their clients reconnect through a healthy
// member; logs how many once every worker has answered.
void Pools::close_sessions(const PoolRuntime& pool, const MemberRuntime& m, bool silent) {
  // What the line needs, copied: by the time every worker answered, a reload may have removed
  // the member. The counts are read then, so that they include what the close did.
  struct Facts {
    std::string pool, member, address;
    model::OperatingStatus status;
    bool silent = false;
    std::shared_ptr<const proxy::BackendStats> stats;
    model::DisruptionCounts since;
  };
  auto facts = std::make_shared<const Facts>(
      Facts{.pool = pool.config.name,
            .member = m.config.name,
            .address = m.address ? m.address->to_string() : m.config.address,
            .status = m.status,
            .silent = silent,
            .stats = m.stats,
            .since = m.counted_since});
  sink_.close_sessions(m.stats, [facts] {
    log_disruption(facts->pool, facts->member, facts->address, facts->status,
                   facts->stats->disruption() - facts->since, facts->silent);
  });
}

void Pools::record_transition(const PoolRuntime& pool, const MemberTransition& t) {
  log_transition(pool, pool.members[t.member], t);
  remember(pool, pool.members[t.member], pool.members[t.member].state_since, t.line);
}

void Pools::remember(const PoolRuntime& pool, const MemberRuntime& member, model::WallTime at,
                     std::string line) {
  transitions_.push_back({.at = at,
                          .pool_id = pool.id,
                          .pool = pool.config.name,
                          .member = member.config.name,
                          .message = std::move(line)});
  while (transitions_.size() > kMaxTransitions) transitions_.pop_front();
  if (transitions_changed_) transitions_changed_();
}

void Pools::restore_transitions(std::vector<model::Transition> kept) {
  for (auto it = kept.rbegin(); it != kept.rend() && transitions_.size() < kMaxTransitions; ++it) {
    transitions_.push_front(std::move(*it));
  }
}

bool Pools::first_checks_done() const {
  for (const auto& [id, pool] : pools_) {
    if (!pool->config.health_monitor) continue;
    for (const MemberRuntime& m : pool->members) {
      if (m.config.enabled && !m.last_check) return false;
    }
  }
  return true;
}

Duration Pools::first_checks_bound() const {
  // First checks start at once (TLS ones a millisecond apart) and each ends by its timeout.
  Duration longest{};
  size_t members = 0;
  for (const auto& [id, pool] : pools_) {
    if (!pool->config.health_monitor) continue;
    longest = std::max(longest, pool->config.health_monitor->timeout);
    members += pool->members.size();
  }
  return longest + members * std::chrono::milliseconds(1) + std::chrono::seconds(5);
}

}  // namespace vigil::daemon
