#include "admin/octavia/views.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "admin/pool_key.h"

namespace vigil::admin {
namespace {

using model::OperatingStatus;

template <typename T>
const T* by_id(const std::vector<T>& items, const std::string& id) {
  for (const T& item : items) {
    if (item.id == id) return &item;
  }
  return nullptr;
}

// The daemon's members of one pool, found by id. The daemon runs a pool's members in the
// store's order, so the one at the same index is tried first; a search by id after that (a
// member the daemon has not run yet shifts the rest) indexes them once rather than comparing
// every id for every member (at 1,000 members that was most of an API write's time).
class LiveMembers {
 public:
  explicit LiveMembers(const model::PoolView* live) : live_(live) {}

  const model::MemberView* find(size_t i, const std::string& id) {
    if (live_ == nullptr) return nullptr;
    const auto& members = live_->members;
    if (i < members.size() && members[i].id == id) return &members[i];
    if (index_.empty()) {
      index_.reserve(members.size());
      for (const model::MemberView& m : members) index_.emplace(m.id, &m);
    }
    const auto at = index_.find(id);
    return at == index_.end() ? nullptr : at->second;
  }

 private:
  const model::PoolView* live_;
  std::unordered_map<std::string_view, const model::MemberView*> index_;
};

model::MemberView member_view(const ApiMember& am, const model::Member& config, const ApiPool& pool,
                              const model::MemberView* l) {
  model::MemberView v{.id = am.id, .pool_id = pool.id, .config = config};
  v.config.name = am.name;
  if (l == nullptr) {
    // Not run (yet): what the daemon would show before the first check.
    const bool monitored = pool.healthmonitor && pool.healthmonitor->admin_state_up;
    v.operating_status = model::member_status(
        {.enabled = config.enabled, .weight = config.weight, .has_monitor = monitored});
    return v;
  }
  v.admin_override = l->admin_override;
  v.operating_status = l->operating_status;
  v.health = l->health;
  v.in_rotation = l->in_rotation;
  v.last_check = l->last_check;
  v.last_check_at = l->last_check_at;
  v.state_since = l->state_since;
  v.consecutive_successes = l->consecutive_successes;
  v.consecutive_failures = l->consecutive_failures;
  v.active_connections = l->active_connections;
  v.total_connections = l->total_connections;
  v.connect_failures = l->connect_failures;
  v.bytes_in = l->bytes_in;
  v.bytes_out = l->bytes_out;
  v.checks = l->checks;
  return v;
}

model::PoolView pool_view(const ApiLoadBalancer& lb, const ApiPool& ap, model::Pool config,
                          const model::LoadBalancerView* live,
                          std::optional<std::string_view> only_member) {
  model::PoolView v{.id = ap.id, .load_balancer_id = lb.id};
  if (ap.healthmonitor) v.health_monitor_id = ap.healthmonitor->id;
  for (const ApiListener& l : lb.listeners) {
    if (l.default_pool_id == ap.id) v.listener_ids.push_back(l.id);
  }
  const model::PoolView* lp = live ? by_id(live->pools, ap.id) : nullptr;
  LiveMembers live_members(lp);
  std::vector<OperatingStatus> statuses;
  if (!only_member) v.members.reserve(ap.members.size());
  for (size_t i = 0; i < ap.members.size(); ++i) {
    const ApiMember& am = ap.members[i];
    if (only_member && am.id != *only_member) continue;
    v.members.push_back(member_view(am, member_config_of(am, ap), ap, live_members.find(i, am.id)));
    statuses.push_back(v.members.back().operating_status);
  }
  config.members.clear();  // the members are in v.members (status_tree.h)
  config.name = ap.name;
  v.config = std::move(config);
  v.operating_status = lp ? lp->operating_status : model::pool_status(statuses);
  v.fail_open_active = lp && lp->fail_open_active;
  return v;
}

}  // namespace

model::LoadBalancerView api_view(const ApiLoadBalancer& lb, const model::LoadBalancerView* live,
                                 std::optional<std::string_view> only_member) {
  model::Config config = config_of(lb, Purpose::kShowShell);
  model::LoadBalancerView v{.id = lb.id, .name = lb.name, .vip_address = lb.vip_address};
  if (live) {
    v.started_at = live->started_at;
    v.last_reload_ok = live->last_reload_ok;
    v.last_reload_at = live->last_reload_at;
    v.recent_transitions = live->recent_transitions;
  }
  for (size_t i = 0; i < lb.pools.size() && i < config.pools.size(); ++i) {
    v.pools.push_back(pool_view(lb, lb.pools[i], std::move(config.pools[i]), live, only_member));
  }
  std::vector<OperatingStatus> statuses;
  std::vector<OperatingStatus> used_pools;  // of the enabled listeners
  for (size_t i = 0; i < lb.listeners.size() && i < config.listeners.size(); ++i) {
    const ApiListener& al = lb.listeners[i];
    model::ListenerView lv{.id = al.id,
                           .load_balancer_id = lb.id,
                           .default_pool_id = al.default_pool_id,
                           .config = std::move(config.listeners[i])};
    lv.config.name = al.name;
    const model::ListenerView* ll = live ? by_id(live->listeners, al.id) : nullptr;
    const model::PoolView* pool = by_id(v.pools, al.default_pool_id);
    if (!lb.admin_state_up || !al.admin_state_up) {
      lv.operating_status = OperatingStatus::kOffline;
    } else if (ll != nullptr) {
      lv.operating_status = ll->operating_status;
      lv.bound = ll->bound;
      lv.bind_error = ll->bind_error;
      lv.bind_errors = ll->bind_errors;
      lv.active_connections = ll->active_connections;
      lv.total_connections = ll->total_connections;
      lv.counters = ll->counters;
    } else {
      lv.operating_status = model::listener_status({});  // what the daemon shows once bound
    }
    statuses.push_back(lv.operating_status);
    if (pool != nullptr && lv.operating_status != OperatingStatus::kOffline) {
      used_pools.push_back(pool->operating_status);
    }
    v.listeners.push_back(std::move(lv));
  }
  v.operating_status = model::load_balancer_status(
      {.enabled = lb.admin_state_up, .listeners = statuses, .pools = used_pools});
  return v;
}

std::vector<model::LoadBalancerView> merged_views(std::vector<model::LoadBalancerView> daemon,
                                                  const ObjectStore* store,
                                                  std::optional<std::string_view> pool_key) {
  return merged_views(std::move(daemon), store != nullptr ? &store->state() : nullptr, pool_key);
}

std::vector<model::LoadBalancerView> merged_views(std::vector<model::LoadBalancerView> daemon,
                                                  const ApiState* api,
                                                  std::optional<std::string_view> pool_key) {
  if (api == nullptr) return daemon;
  const ApiState& state = *api;
  std::unordered_set<std::string_view> api_ids;
  for (const ApiLoadBalancer& lb : state.loadbalancers) api_ids.insert(lb.id);
  // By id, once: ten thousand load balancers are ten thousand views.
  std::unordered_map<std::string_view, const model::LoadBalancerView*> live;
  std::vector<model::LoadBalancerView> out;
  for (model::LoadBalancerView& v : daemon) {
    if (api_ids.contains(v.id)) {
      live.emplace(v.id, &v);
    } else {
      out.push_back(std::move(v));
    }
  }
  const std::optional<PoolKey> key =
      pool_key ? std::optional(PoolKey::parse(*pool_key)) : std::nullopt;
  const auto named = [&](const std::string& id, const std::string& name) {
    return !key || key->names_pool(id, name);
  };
  for (const ApiLoadBalancer& lb : state.loadbalancers) {
    if (key && (!key->names_lb(lb.name, lb.id) ||
                std::none_of(lb.pools.begin(), lb.pools.end(),
                             [&](const ApiPool& p) { return named(p.id, p.name); }))) {
      continue;
    }
    const auto found = live.find(lb.id);
    model::LoadBalancerView v = api_view(lb, found == live.end() ? nullptr : found->second);
    if (key)
      std::erase_if(v.pools, [&](const model::PoolView& p) { return !named(p.id, p.config.name); });
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<model::LoadBalancerView> api_lb_views(std::vector<model::LoadBalancerView> daemon,
                                                  const ObjectStore& store, std::string_view lb_id,
                                                  std::optional<std::string_view> only_member) {
  const ApiLoadBalancer* lb = store.state().lb(lb_id);
  if (lb == nullptr) return {};
  const auto live = std::ranges::find(daemon, lb_id, &model::LoadBalancerView::id);
  std::vector<model::LoadBalancerView> out;
  out.push_back(api_view(*lb, live == daemon.end() ? nullptr : &*live, only_member));
  return out;
}

std::vector<model::LoadBalancerView> write_views(std::vector<model::LoadBalancerView> daemon,
                                                 const ObjectStore& store,
                                                 const ApiLoadBalancer* lb,
                                                 std::optional<std::string_view> only_member) {
  std::vector<model::LoadBalancerView> out;
  const model::LoadBalancerView* live = nullptr;
  for (model::LoadBalancerView& v : daemon) {
    if (lb != nullptr && v.id == lb->id) {
      live = &v;
    } else if (store.state().lb(v.id) == nullptr) {
      out.push_back(std::move(v));
    }
  }
  if (lb != nullptr) out.push_back(api_view(*lb, live, only_member));
  return out;
}

}  // namespace vigil::admin
