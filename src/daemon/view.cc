// The read-only pictures the control plane hands out: the status views for the admin API and the
// ready file for whoever started vigil.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "admin/pool_key.h"
#include "admin/server.h"
#include "daemon/api_members.h"
#include "daemon/control_plane.h"
#include "daemon/disruption.h"
#include "proxy/stick_table.h"

namespace vigil::daemon {
namespace {

// As the Octavia API shows it, so that `vigil health --vips-file` reads the same address.
std::string vip_address(const model::Config& c) {
  if (!c.vip_address.empty()) return c.vip_address;
  if (c.listeners.empty() || c.listeners.front().bind_address.empty()) return "0.0.0.0";
  return c.listeners.front().bind_address;
}

model::MemberView member_view(const PoolRuntime& p, const MemberRuntime& m, bool history) {
  model::MemberView mv{
      .id = m.id,
      .pool_id = p.id,
      .config = m.config,
      .admin_override = m.admin_override,
      .operating_status = m.status,
      .health = m.health,
      .in_rotation = m.in_rotation,
      .last_check = m.last_check,
      .last_check_at = m.last_check_at,
      .state_since = m.state_since,
      .health_status = m.health_status,
      .health_since = m.health_since,
      .consecutive_successes = m.successes,
      .consecutive_failures = m.failures,
      .active_connections = m.stats->active.load(std::memory_order_relaxed),
      .total_connections = m.stats->total.load(std::memory_order_relaxed),
      .connect_failures = m.stats->connect_failures.load(std::memory_order_relaxed),
      .bytes_in = m.stats->bytes_in.load(std::memory_order_relaxed),
      .bytes_out = m.stats->bytes_out.load(std::memory_order_relaxed),
      .checks = m.checks,
      .history = history ? std::make_shared<const model::MemberHistory>(m.history) : nullptr,
      .disruption = m.stats->disruption(),
      .last_disruption = last_disruption(m)};
  if (!m.address && !m.last_check) {
    mv.last_check =
        model::CheckResult{.outcome = model::Outcome::kResolveFailed, .detail = m.resolve_error};
  }
  // No address, no traffic: whatever its checks say, it is not serving.
  if (!m.address && m.config.enabled) mv.operating_status = model::OperatingStatus::kError;
  return mv;
}

void listener_counters(const proxy::ListenerStats& s, model::ListenerView& lv) {
  constexpr auto r = std::memory_order_relaxed;
  lv.active_connections = s.active.load(r);
  lv.total_connections = s.total.load(r);
  lv.counters.bytes_in = s.bytes_in.load(r);
  lv.counters.bytes_out = s.bytes_out.load(r);
  lv.counters.rejected = s.rejected.load(r);
  lv.counters.no_backend = s.no_backend.load(r);
  lv.counters.retried = s.retried.load(r);
  lv.counters.hedged = s.hedged.load(r);
  lv.counters.replayed = s.replayed.load(r);
  lv.counters.connect_failures = s.connect_failures.load(r);
  lv.counters.proxy_untrusted = s.proxy_untrusted.load(r);
  lv.counters.proxy_invalid = s.proxy_invalid.load(r);
  lv.counters.proxy_timeout = s.proxy_timeout.load(r);
  lv.counters.refused_cidr = s.refused_cidr.load(r);
}

// One listener's view into `v`, its status and its pool's beside the others'.
void add_listener(const LoadBalancerRuntime& lb, const ListenerRuntime& l,
                  const Pools::PoolMap& pools, model::LoadBalancerView& v,
                  std::vector<model::OperatingStatus>& listener_statuses,
                  std::vector<model::OperatingStatus>& used_pool_statuses) {
  const auto pool = pools.find(l.pool_id);
  const bool has_pool = pool != pools.end();
  model::ListenerView lv{
      .id = l.id,
      .load_balancer_id = lb.config.id,
      .default_pool_id = has_pool ? pool->second->id : "",
      .config = l.config,
      .bound = l.bound,
      .bind_error = l.bind_error,
      .bind_errors = l.bind_failures,
  };
  listener_counters(*l.stats, lv);
  lv.operating_status = model::listener_status(
      {.bound = l.bind_error.empty(),
       .full = l.config.max_connections > 0 &&
               lv.active_connections >= static_cast<uint64_t>(l.config.max_connections)});
  listener_statuses.push_back(lv.operating_status);
  if (has_pool) used_pool_statuses.push_back(pool->second->status);
  v.listeners.push_back(std::move(lv));
}

}  // namespace

std::vector<model::LoadBalancerView> ControlPlane::views(const ViewScope& scope) const {
  std::vector<model::LoadBalancerView> out;
  std::span<const LoadBalancerRuntime> shown(lbs_);
  if (scope.lb_id) {  // one of ten thousand: not found by comparing ten thousand ids
    const auto at = lb_at_.find(*scope.lb_id);
    shown = at == lb_at_.end() ? shown.first(0) : shown.subspan(at->second, 1);
  }
  views_of(shown, scope, out);
  return out;
}

uint64_t ControlPlane::views_after(const ViewScope& scope, uint64_t cursor, size_t count,
                                   std::vector<model::LoadBalancerView>& out) const {
  // lbs_ is in the order they were made (LoadBalancerRuntime::order).
  const auto first = std::ranges::upper_bound(lbs_, cursor, {}, &LoadBalancerRuntime::order);
  const size_t at = static_cast<size_t>(first - lbs_.begin());
  const size_t n = std::min(count, lbs_.size() - at);
  views_of(std::span(lbs_).subspan(at, n), scope, out);
  return at + n < lbs_.size() && n > 0 ? lbs_[at + n - 1].order : 0;
}

void ControlPlane::views_of(std::span<const LoadBalancerRuntime> shown, const ViewScope& scope,
                            std::vector<model::LoadBalancerView>& out) const {
  const std::optional<admin::PoolKey> key =
      scope.pool_key ? std::optional(admin::PoolKey::parse(*scope.pool_key)) : std::nullopt;
  // Grown geometrically: a reserve to the exact size at each slice (views_after) would move every
  // view taken so far again, a slice at a time, on the control thread.
  if (out.capacity() < out.size() + shown.size()) {
    out.reserve(std::max(out.size() + shown.size(), 2 * out.capacity()));
  }
  for (const LoadBalancerRuntime& lb : shown) {
    const bool api = lb.config.origin != model::Origin::kFile;
    if (!api && !scope.file) continue;
    if (api && !scope.api) continue;
    if (scope.lb_id && lb.config.id != *scope.lb_id) continue;
    // The pools to show: all, or those the key can name (by the daemon's names: the file's).
    std::vector<const PoolRuntime*> pools;
    pools.reserve(lb.config.pools.size());
    if (!key || api || key->names_lb(lb.config.name, lb.config.id)) {
      for (const model::Pool& named : lb.config.pools) {
        // Named by the load balancer's own copy of the pool's config (a file pool's name and id
        // change only by a reload, which makes both anew): a narrowed view of a file with ten
        // thousand pools hashes the one id it shows, not ten thousand (6 ms of each `vigil
        // member weight` at that size).
        if (key && !api && !key->names_pool(named.id, named.name)) continue;
        pools.push_back(pools_->all().at(named.id).get());
      }
    }
    if (key && pools.empty()) continue;
    model::LoadBalancerView v{.id = lb.config.id,
                              .name = lb.config.name,
                              .source_file = lb.config.source_file,
                              .vip_address = vip_address(lb.config),
                              .started_at = started_at_,
                              .last_reload_ok = last_reload_ok_,
                              .last_reload_at = last_reload_at_};
    for (const auto& w : workers_) v.connection_log_dropped += w->connection_log().dropped();
    if (peer_sync_ && &lb == &lbs_.front()) {
      v.peers = peer_sync_->view();
      v.peer_sessions_sent = peer_sync_->sessions_sent();
    }
    if (tickler_) {
      const TickleCounts& t = tickler_->counts();
      v.takeover = {.addresses_lost = addresses_lost_,
                    .sessions = t.sessions,
                    .tickles_sent = t.sent,
                    .tickles_failed = t.failed};
    }
    std::vector<model::OperatingStatus> listener_statuses;
    std::vector<model::OperatingStatus> used_pool_statuses;
    // Listeners by pool, once: a file with N listeners and N pools (one load balancer each in
    // Octavia's terms) would otherwise cost N * N lookups per view. A narrowed view has none.
    std::unordered_map<std::string_view, std::vector<std::string>> listeners_of;
    const bool listeners = !key || api;
    if (listeners) {
      // Sized once, not grown: at ten thousand listeners a scrape then held a write a fifth less.
      const size_t n = lb.config.listeners.size();
      listeners_of.reserve(n);
      v.listeners.reserve(n);
      listener_statuses.reserve(n);
      used_pool_statuses.reserve(n);
    }
    v.pools.reserve(pools.size());
    for (size_t i = 0; listeners && i < lb.config.listeners.size(); ++i) {
      const ListenerRuntime& l = listeners_->all().at(lb.config.listeners[i].id);
      listeners_of[l.pool_id].push_back(l.id);
      add_listener(lb, l, pools_->all(), v, listener_statuses, used_pool_statuses);
      if (l.config.redirect_from && redirects_)
        v.listeners.back().redirect = redirects_->view(l.id);
    }
    for (const PoolRuntime* p : pools) {
      model::PoolView pv{
          .id = p->id,
          .load_balancer_id = lb.config.id,
          .health_monitor_id = p->config.health_monitor ? p->config.health_monitor->id : "",
          .config = p->config,
          .operating_status = p->status,
          .fail_open_active = p->fail_open_active,
          .persistence_entries = p->snapshot && p->snapshot->stickiness.table
                                     ? p->snapshot->stickiness.table->used()
                                     : 0};
      if (auto it = listeners_of.find(p->id); it != listeners_of.end()) {
        pv.listener_ids = std::move(it->second);
      }
      if (!api && api_members_ && p->config.members_from) {
        pv.members_source = api_members_->view(p->config.name);
      }
      if (api && scope.member_id) {
        for (const MemberRuntime& m : p->members) {
          if (m.id == *scope.member_id) pv.members.push_back(member_view(*p, m, scope.history));
        }
      } else if (scope.file_members || api) {
        pv.members.reserve(p->members.size());
        for (const MemberRuntime& m : p->members)
          pv.members.push_back(member_view(*p, m, scope.history));
      }
      v.pools.push_back(std::move(pv));
    }
    v.operating_status =
        model::load_balancer_status({.listeners = listener_statuses, .pools = used_pool_statuses});
    // By pool id: two load balancers may both have a pool named "masters".
    std::unordered_set<std::string_view> pool_ids;
    pool_ids.reserve(pools.size());
    for (const PoolRuntime* p : pools) pool_ids.insert(p->id);
    for (const auto& t : pools_->transitions()) {
      if (pool_ids.contains(t.pool_id)) v.recent_transitions.push_back(t);
    }
    out.push_back(std::move(v));
  }
}

model::LoadBalancerView ControlPlane::view() const { return views().front(); }

std::string ControlPlane::ready_json() const {
  std::string listeners;
  for (const model::Listener& given : lbs_.front().config.listeners) {
    const ListenerRuntime& l = listeners_->all().at(given.id);
    if (!listeners.empty()) listeners += ", ";
    // Names are limited to [A-Za-z0-9._-] by config validation: no escaping needed.
    listeners += fmt::format("\"{}\": \"{}\"", l.config.name, l.bound);
  }
  return fmt::format("{{\"admin\": \"{}\", \"listeners\": {{{}}}, \"pid\": {}}}\n",
                     admin_ ? admin_->bound() : "", listeners, ::getpid());
}

}  // namespace vigil::daemon
