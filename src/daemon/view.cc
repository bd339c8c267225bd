// The read-only pictures the control plane hands out: the status view for the admin API and the
// ready file for whoever started vigil.
#include <fmt/format.h>

#include "admin/server.h"
#include "daemon/control_plane.h"
#include "model/ids.h"

namespace vigil::daemon {

model::LoadBalancerView ControlPlane::view() const {
  model::LoadBalancerView lb{.id = lb_id_,
                             .name = config_.name,
                             .source_file = config_.source_file,
                             .started_at = started_at_};
  std::vector<model::OperatingStatus> listener_statuses;
  for (const ListenerRuntime& l : listeners_) {
    const PoolRuntime& pool = pools_[l.pool_index];
    model::ListenerView v{.id = l.id,
                          .load_balancer_id = lb_id_,
                          .default_pool_id = pool.id,
                          .config = l.config,
                          .bound = l.bound,
                          .operating_status = pool.status,
                          .active_connections = l.stats->active.load(std::memory_order_relaxed),
                          .total_connections = l.stats->total.load(std::memory_order_relaxed)};
    listener_statuses.push_back(v.operating_status);
    lb.listeners.push_back(std::move(v));
  }
  for (const PoolRuntime& p : pools_) {
    model::PoolView pv{.id = p.id,
                       .load_balancer_id = lb_id_,
                       .health_monitor_id = p.config.health_monitor
                                                ? model::health_monitor_id(config_.name, p.config.name)
                                                : "",
                       .config = p.config,
                       .operating_status = p.status,
                       .fail_open_active = p.fail_open_active};
    for (const ListenerRuntime& l : listeners_) {
      if (&pools_[l.pool_index] == &p) pv.listener_ids.push_back(l.id);
    }
    for (const MemberRuntime& m : p.members) {
      model::MemberView mv{.id = m.id,
                           .pool_id = p.id,
                           .config = m.config,
                           .operating_status = m.status,
                           .health = m.health,
                           .in_rotation = m.in_rotation,
                           .last_check = m.last_check,
                           .last_check_at = m.last_check_at,
                           .state_since = m.state_since,
                           .consecutive_successes = m.successes,
                           .consecutive_failures = m.failures,
                           .active_connections = m.stats->active.load(std::memory_order_relaxed),
                           .total_connections = m.stats->total.load(std::memory_order_relaxed),
                           .connect_failures =
                               m.stats->connect_failures.load(std::memory_order_relaxed)};
      if (!m.address && !m.last_check) {
        mv.last_check = model::CheckResult{.outcome = model::Outcome::kResolveFailed,
                                           .detail = m.resolve_error};
      }
      pv.members.push_back(std::move(mv));
    }
    lb.pools.push_back(std::move(pv));
  }
  if (listener_statuses.empty()) {
    for (const PoolRuntime& p : pools_) listener_statuses.push_back(p.status);
  }
  lb.operating_status = model::aggregate_status(listener_statuses);
  lb.recent_transitions.assign(transitions_.begin(), transitions_.end());
  return lb;
}

std::string ControlPlane::ready_json() const {
  std::string listeners;
  for (const ListenerRuntime& l : listeners_) {
    if (!listeners.empty()) listeners += ", ";
    // Names are limited to [A-Za-z0-9._-] by config validation: no escaping needed.
    listeners += fmt::format("\"{}\": \"{}\"", l.config.name, l.bound);
  }
  return fmt::format("{{\"admin\": \"{}\", \"listeners\": {{{}}}}}\n",
                     admin_ ? admin_->bound() : "", listeners);
}

}  // namespace vigil::daemon
