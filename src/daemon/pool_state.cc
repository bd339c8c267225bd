#include "daemon/pool_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "daemon/disruption.h"
#include "daemon/member_health.h"
#include "daemon/rotation.h"
#include "daemon/transition_log.h"
#include "net/netmask.h"
#include "net/socket.h"
#include "proxy/stick_table.h"

namespace vigil::daemon {
namespace {

using model::OperatingStatus;

// kube-apiserver's graceful shutdown: /readyz fails with "[-]shutdown failed" while it serves.
bool announces_shutdown(const model::CheckResult& check) {
  return std::ranges::any_of(check.failed_checks,
                             [](const std::string& c) { return c.starts_with("[-]shutdown"); });
}

bool is_up(OperatingStatus s) {
  return s == OperatingStatus::kOnline || s == OperatingStatus::kNoMonitor;
}

size_t members_up(const PoolRuntime& pool) {
  return static_cast<size_t>(
      std::ranges::count_if(pool.members, [](const MemberRuntime& x) { return is_up(x.status); }));
}

model::AdminState admin_state(const MemberRuntime& m) {
  return m.admin_override ? m.admin_override->state : model::AdminState::kReady;
}

// What a line about `m` tells, as it is now: `after` is its new status, or the health's verdict.
TransitionFacts facts_of(const PoolRuntime& pool, const MemberRuntime& m, OperatingStatus before,
                         OperatingStatus after) {
  const auto& monitor = pool.config.health_monitor;
  return {.pool = pool.config.name,
          .member = m.config.name,
          .address = m.address ? m.address->to_string() : m.config.address,
          .before = before,
          .after = after,
          .check = m.last_check,
          .first_check = m.first_check,
          .successes = m.successes,
          .failures = m.failures,
          .healthy_threshold = monitor ? monitor->healthy_threshold : 0,
          .unhealthy_threshold = monitor ? monitor->unhealthy_threshold : 0};
}

// `admin`: the override change that caused the transition, for its line; empty for a check's.
// `up`: the members up as this change left the pool.
std::string line_of(const PoolRuntime& pool, const MemberRuntime& m, OperatingStatus before,
                    std::string_view admin, bool closing, size_t up) {
  TransitionFacts f = facts_of(pool, m, before, m.status);
  f.members_up = up;
  f.members_total = pool.members.size();
  f.admin = std::string(admin);
  if (!in_service(m.status)) f.disruption = disruption_counts(m);
  f.closing = closing;
  return transition_line(f);
}

// Why the member's status does not follow its health; empty when it does. (A member disabled in
// the config is not checked.)
std::string health_hidden_by(const MemberRuntime& m) {
  const auto& o = m.admin_override;
  if (o && (o->state != model::AdminState::kReady || o->weight == 0)) {
    return fmt::format("admin {}, set by {}", model::describe(*o), o->by);
  }
  if (weight_of(m) == 0) return "weight 0 in the config";
  return {};
}

// Follows what the member's health alone says. Its down periods are the page's downtime whatever
// the override shows: a master rebooting while drained was down all the same. A fresh pool's
// member keeps the time it was handed over with (an upgrade), else starts its clock now.
void update_health_status(const PoolRuntime& pool, MemberRuntime& m, const PoolContext& at,
                          bool fresh) {
  const OperatingStatus health = health_status_of(pool, m);
  if (health == m.health_status) return;
  if (fresh) {
    m.health_status = health;
    if (m.health_since == model::WallTime{}) m.health_since = at.wall;
    return;
  }
  if (m.health_status == OperatingStatus::kError) m.history.record_down(m.health_since, at.wall);
  m.health_status = health;
  m.health_since = at.wall;
}

// Sets the member's status; reports a change unless the pool is fresh. `up` counts the members
// up while recompute() walks them, so each line tells the pool as that change left it: members
// before the changed one have their new status, those after it still their old one. Counting
// them anew for each line would cost the square of the pool when a cold start changes them all.
void update_member(PoolRuntime& pool, size_t i, const PoolContext& at, bool fresh,
                   std::string_view admin, size_t& up, PoolChanges& out) {
  MemberRuntime& m = pool.members[i];
  const OperatingStatus before = m.status;
  m.draining = draining_of(pool, m);
  m.status = member_status_of(pool, m);
  update_health_status(pool, m, at, fresh);
  up = up - (is_up(before) ? 1 : 0) + (is_up(m.status) ? 1 : 0);
  if (m.status == before || fresh) return;
  // The first verdict on a member is no flap: it had no status of its own before.
  if (!m.first_check || !admin.empty()) m.history.record_transition(at.wall);
  m.state_since = at.wall;
  ++m.checks.transitions;
  note_transition(m, before, at.wall);
  // A member that still answers its checks is alive and serving: its sessions finish (a
  // draining API server closes them itself).
  const bool close = m.status == OperatingStatus::kError && pool.config.shutdown_sessions_on_down &&
                     !answered(m.last_check);
  // Entering maintenance closes them too (apply_override).
  const bool maint =
      m.status == OperatingStatus::kOffline && admin_state(m) == model::AdminState::kMaint;
  out.transitions.push_back({.member = i,
                             .before = before,
                             .after = m.status,
                             .line = line_of(pool, m, before, admin, close || maint, up)});
  if (close) out.closes.push_back({.member = i, .reason = CloseReason::kDown});
}

// Whether the member takes connections, as far as its last check shows: refused, or no answer at
// all, says no (HAProxy's L4CON/L4TOUT), an answer of any kind (a failing /readyz, a TLS alert)
// says yes. A check of another address or port says nothing of the traffic port.
bool takes_connections(const MemberRuntime& m) {
  if (!m.last_check || !m.config.monitor_address.empty() || m.config.monitor_port != 0) return true;
  const model::Outcome o = m.last_check->outcome;
  return o != model::Outcome::kRefused && o != model::Outcome::kTimeout &&
         o != model::Outcome::kNetworkError;
}

// The one reason every checked member of the pool fails with (the same HTTP code and failing
// /readyz checks): the cluster's problem (an etcd blip), not the members'. Empty otherwise.
std::string common_reason(const PoolRuntime& pool) {
  const model::CheckResult* first = nullptr;
  size_t failing = 0;
  for (const MemberRuntime& m : pool.members) {
    if (!m.config.enabled || !m.last_check) continue;
    const model::CheckResult& c = *m.last_check;
    if (c.outcome != model::Outcome::kBadStatus) return {};
    if (first != nullptr &&
        (c.http_code != first->http_code || c.failed_checks != first->failed_checks)) {
      return {};
    }
    first = &c;
    ++failing;
  }
  return failing >= 2 ? model::describe(*first) : std::string{};
}

// An admin drain takes the member out even of a fail-open rotation (weight 0), as Octavia's
// weight 0 does; maintenance is out like a disabled member, but its checks go on.
RotationInput rotation_input(const PoolRuntime& pool, const MemberRuntime& m) {
  const model::AdminState admin = admin_state(m);
  return {.enabled = m.config.enabled && admin != model::AdminState::kMaint,
          .weight = admin == model::AdminState::kDrain ? 0 : weight_of(m),
          .backup = m.config.backup,
          .has_monitor = pool.config.health_monitor.has_value(),
          .health = m.health,
          .passive_out = m.passive_out,
          .draining = m.draining,
          .resolved = m.address.has_value(),
          .takes_connections = takes_connections(m),
          .timed_out = !takes_connections(m) && m.last_check->outcome == model::Outcome::kTimeout};
}

// Validated by config/ and the API; a granularity that does not parse keeps whole addresses.
// The table of `previous` is kept while the persistence settings stay: a member added or gone
// must not make the pool forget its clients.
proxy::Stickiness stickiness_of(const model::Pool& config, const proxy::PoolSnapshot* previous,
                                TimePoint now) {
  const model::SessionPersistence& sp = config.session_persistence;
  proxy::Stickiness out{.on = sp.type == model::Persistence::kSourceIp};
  if (!out.on) return out;
  if (!sp.granularity.empty()) {
    if (auto mask = net::parse_netmask(sp.granularity)) {
      (mask->v6 ? out.v6_prefix : out.v4_prefix) = mask->prefix;
    }
  }
  const proxy::Stickiness* before = previous != nullptr ? &previous->stickiness : nullptr;
  if (before != nullptr && before->table && before->v4_prefix == out.v4_prefix &&
      before->v6_prefix == out.v6_prefix &&
      before->table->timeout() == std::chrono::ceil<std::chrono::seconds>(sp.timeout)) {
    out.table = before->table;
  } else {
    // Seeded per table and start, so that clients cannot pick addresses that crowd one group.
    const auto seed = static_cast<uint64_t>(now.time_since_epoch().count()) ^
                      std::hash<std::string>{}(config.name);
    out.table =
        std::make_shared<proxy::StickTable>(model::kPersistenceEntries, sp.timeout, now, seed);
  }
  return out;
}

// The snapshot the rotation makes; marks the members in it. Sets `ramping` when one of them is
// below its full weight.
std::shared_ptr<proxy::PoolSnapshot> snapshot_of(PoolRuntime& pool, const Rotation& rotation,
                                                 TimePoint now, bool& ramping) {
  auto next = std::make_shared<proxy::PoolSnapshot>(proxy::PoolSnapshot{
      .name = pool.config.name,
      .algorithm = pool.config.algorithm,
      .connect_timeout = pool.config.connect_timeout,
      .retries = pool.config.retries,
      .hedge_after = pool.config.hedge_after,
      .backend_dead_peer = net::dead_peer_options(pool.config.dead_peer_timeout),
      .first_byte_timeout = pool.config.first_byte_timeout,
      .replay = pool.config.replay,
      .stickiness = stickiness_of(pool.config, pool.snapshot.get(), now),
  });
  for (MemberRuntime& m : pool.members) m.in_rotation = false;
  ramping = false;
  for (size_t i : rotation.members) {
    MemberRuntime& m = pool.members[i];
    m.in_rotation = true;
    const int weight = ramped_weight(weight_of(m), pool.config.slow_start, m.recovered_at, now);
    ramping |= weight < weight_of(m) * kWeightScale;
    next->candidates.push_back(
        {.member_id = m.id,
         .name = m.config.name,
         .address = *m.address,
         .weight = weight,
         .proxy_protocol = m.config.proxy_protocol.value_or(pool.config.proxy_protocol),
         .stats = m.stats});
  }
  return next;
}

}  // namespace

bool draining_of(const PoolRuntime& pool, const MemberRuntime& m) {
  return pool.config.health_monitor.has_value() && m.last_check &&
         m.last_check->outcome == model::Outcome::kBadStatus &&
         (m.health == model::Health::kUp || announces_shutdown(*m.last_check));
}

int weight_of(const MemberRuntime& m) {
  return m.admin_override && m.admin_override->weight ? *m.admin_override->weight : m.config.weight;
}

OperatingStatus health_status_of(const PoolRuntime& pool, const MemberRuntime& m) {
  return model::member_status({.enabled = m.config.enabled,
                               .weight = 1,
                               .draining = draining_of(pool, m),
                               .has_monitor = pool.config.health_monitor.has_value(),
                               .health = m.health});
}

OperatingStatus member_status_of(const PoolRuntime& pool, const MemberRuntime& m) {
  const model::AdminState admin = admin_state(m);
  return model::member_status(
      {.enabled = m.config.enabled && admin != model::AdminState::kMaint,
       .weight = weight_of(m),
       .draining = draining_of(pool, m) || admin == model::AdminState::kDrain,
       .has_monitor = pool.config.health_monitor.has_value(),
       .health = m.health});
}

namespace {

// recompute(); `admin` names the override change of `admin_member` in its transition line.
PoolChanges recompute_for(PoolRuntime& pool, const PoolContext& at, bool fresh,
                          std::optional<size_t> admin_member, std::string_view admin) {
  PoolChanges out;
  std::vector<RotationInput> inputs;
  std::vector<OperatingStatus> statuses;
  inputs.reserve(pool.members.size());
  statuses.reserve(pool.members.size());
  size_t up = members_up(pool);
  for (size_t i = 0; i < pool.members.size(); ++i) {
    update_member(pool, i, at, fresh, admin_member == i ? admin : std::string_view{}, up, out);
    statuses.push_back(pool.members[i].status);
    inputs.push_back(rotation_input(pool, pool.members[i]));
  }
  pool.status = pool.config.enabled ? model::pool_status(statuses) : OperatingStatus::kOffline;
  const Rotation rotation = choose_rotation(inputs, pool.config.fail_open);
  if (rotation.fail_open != pool.fail_open_active) {
    out.events.push_back(rotation.fail_open ? PoolEvent::kFailOpenStarted
                                            : PoolEvent::kFailOpenEnded);
    pool.fail_open_active = rotation.fail_open;
    if (rotation.fail_open) out.common_reason = common_reason(pool);
  }
  if (rotation.members.empty() && !pool.members.empty() && !fresh && pool.snapshot &&
      !pool.snapshot->candidates.empty()) {
    out.events.push_back(PoolEvent::kNoCandidates);
  }
  bool ramping = false;
  auto next = snapshot_of(pool, rotation, at.now, ramping);
  if (ramping) out.reweigh_at = at.now + kReweighEvery;
  if (pool.snapshot) {
    next->version = pool.snapshot->version;
    if (*next == *pool.snapshot) return out;
  }
  next->version = at.next_version;
  pool.snapshot = next;
  out.snapshot = std::move(next);
  return out;
}

}  // namespace

PoolChanges recompute(PoolRuntime& pool, const PoolContext& at, bool fresh) {
  return recompute_for(pool, at, fresh, std::nullopt, {});
}

CheckRecorded record_check_of(PoolRuntime& pool, size_t member, const health::Event& event,
                              const PoolContext& at) {
  MemberRuntime& m = pool.members[member];
  const CheckEffects effects =
      record_check(m, event, at.now, at.wall, pool.config.shutdown_sessions_on_down);
  CheckRecorded out{.recompute = event.changed || effects.passive_out_changed ||
                                 member_status_of(pool, m) != m.status ||
                                 draining_of(pool, m) != m.draining,
                    .close_sessions = effects.close_sessions};
  // The health's own verdicts: ONLINE or ERROR, as they would show on a member in service.
  if (event.changed && event.health != model::Health::kUnchecked) {
    if (std::string by = health_hidden_by(m); !by.empty()) {
      const OperatingStatus verdict =
          event.health == model::Health::kUp ? OperatingStatus::kOnline : OperatingStatus::kError;
      const OperatingStatus keeps = member_status_of(pool, m);
      std::string line = health_line(facts_of(pool, m, keeps, verdict), by);
      out.hidden = HiddenHealthChange{
          .health = event.health, .keeps = keeps, .hidden_by = by, .line = std::move(line)};
    }
  }
  return out;
}

PoolChanges apply_check(PoolRuntime& pool, size_t member, const health::Event& event,
                        const PoolContext& at) {
  const CheckRecorded effects = record_check_of(pool, member, event, at);
  PoolChanges out;
  if (effects.recompute) out = recompute(pool, at);
  if (effects.close_sessions) {
    // Decided before the recomputation, and carried out before what it decides.
    out.closes.insert(out.closes.begin(), {.member = member, .reason = CloseReason::kSilent});
  }
  return out;
}

std::optional<PoolChanges> apply_connect_failure(PoolRuntime& pool, size_t member, bool silent,
                                                 const PoolContext& at) {
  if (!record_connect_failure(pool.members[member], pool.config.health_monitor.has_value(),
                              silent)) {
    return std::nullopt;
  }
  return recompute(pool, at);
}

PoolChanges apply_override(PoolRuntime& pool, size_t member,
                           std::optional<model::AdminOverride> next, std::string_view by,
                           const PoolContext& at) {
  MemberRuntime& m = pool.members[member];
  const bool was_maint = admin_state(m) == model::AdminState::kMaint;
  m.admin_override = std::move(next);
  const std::string admin =
      m.admin_override ? fmt::format("admin {}, set by {}", model::describe(*m.admin_override), by)
                       : fmt::format("admin override cleared by {}", by);
  PoolChanges out = recompute_for(pool, at, false, member, admin);
  if (!was_maint && admin_state(m) == model::AdminState::kMaint) {
    out.closes.push_back({.member = member, .reason = CloseReason::kMaint});
  }
  return out;
}

PoolChanges reweigh(PoolRuntime& pool, const PoolContext& at) {
  if (pool.config.slow_start <= Duration::zero()) return {};
  return recompute(pool, at);
}

}  // namespace vigil::daemon
