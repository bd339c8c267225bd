#include "admin/octavia/objects.h"

namespace vigil::admin {

ApiLoadBalancer& LoadBalancers::edit(size_t i) {
  Ptr& lb = lbs_.at(i);
  // Control thread only: the count cannot change under us. Alone, the object is this state's:
  // it was made by push_back() or a copy below, never const, so changing it is allowed.
  if (lb.use_count() > 1) lb = std::make_shared<ApiLoadBalancer>(*lb);
  return const_cast<ApiLoadBalancer&>(*lb);
}

void LoadBalancers::push_back(ApiLoadBalancer lb) {
  lbs_.push_back(std::make_shared<ApiLoadBalancer>(std::move(lb)));
}

namespace {

// A lookup walks every object of every load balancer (ten thousand of them, seventy thousand
// objects). Ids are random UUIDs, which differ in their first character fifteen times in sixteen:
// testing it first spares most of the calls that compare the rest.
bool same_id(const std::string& a, std::string_view b) {
  return a.size() == b.size() && (b.empty() || a.front() == b.front()) && a == b;
}

ApiState::Found<ApiListener> listener_in(ApiLoadBalancer& lb, std::string_view id) {
  for (ApiListener& l : lb.listeners) {
    if (same_id(l.id, id)) return {.lb = &lb, .item = &l};
  }
  return {};
}

ApiState::Found<ApiPool> pool_in(ApiLoadBalancer& lb, std::string_view id) {
  for (ApiPool& p : lb.pools) {
    if (same_id(p.id, id)) return {.lb = &lb, .item = &p, .pool = &p};
  }
  return {};
}

ApiState::Found<ApiMember> member_in(ApiLoadBalancer& lb, std::string_view id) {
  for (ApiPool& p : lb.pools) {
    for (ApiMember& m : p.members) {
      if (same_id(m.id, id)) return {.lb = &lb, .item = &m, .pool = &p};
    }
  }
  return {};
}

ApiState::Found<ApiHealthMonitor> monitor_in(ApiLoadBalancer& lb, std::string_view id) {
  for (ApiPool& p : lb.pools) {
    if (p.healthmonitor && same_id(p.healthmonitor->id, id)) {
      return {.lb = &lb, .item = &*p.healthmonitor, .pool = &p};
    }
  }
  return {};
}

ApiState::Found<ApiLoadBalancer> lb_in(ApiLoadBalancer& lb, std::string_view id) {
  if (same_id(lb.id, id)) return {.lb = &lb, .item = &lb};
  return {};
}

// The index of the load balancer `in` finds the object in. `in` only reads here: the cast lets
// one finder serve both the search and, on the load balancer found, the change.
template <typename T>
std::optional<size_t> holder_index(const LoadBalancers& lbs, std::string_view id,
                                   ApiState::Found<T> (*in)(ApiLoadBalancer&, std::string_view)) {
  for (size_t i = 0; i < lbs.size(); ++i) {
    if (in(const_cast<ApiLoadBalancer&>(lbs[i]), id)) return i;
  }
  return std::nullopt;
}

template <typename T>
ApiState::Found<T> find_to_change(LoadBalancers& lbs, std::string_view id,
                                  ApiState::Found<T> (*in)(ApiLoadBalancer&, std::string_view)) {
  const std::optional<size_t> i = holder_index(lbs, id, in);
  return i ? in(lbs.edit(*i), id) : ApiState::Found<T>{};
}

}  // namespace

ApiLoadBalancer* ApiState::find_lb(std::string_view id) {
  return find_to_change(loadbalancers, id, lb_in).item;
}

ApiState::Found<ApiListener> ApiState::find_listener(std::string_view id) {
  return find_to_change(loadbalancers, id, listener_in);
}

ApiState::Found<ApiPool> ApiState::find_pool(std::string_view id) {
  return find_to_change(loadbalancers, id, pool_in);
}

ApiState::Found<ApiMember> ApiState::find_member(std::string_view id) {
  return find_to_change(loadbalancers, id, member_in);
}

ApiState::Found<ApiHealthMonitor> ApiState::find_monitor(std::string_view id) {
  return find_to_change(loadbalancers, id, monitor_in);
}

namespace {

// The object `in` finds, read only.
template <typename T>
const T* find_to_read(const LoadBalancers& lbs, std::string_view id,
                      ApiState::Found<T> (*in)(ApiLoadBalancer&, std::string_view)) {
  const std::optional<size_t> i = holder_index(lbs, id, in);
  return i ? in(const_cast<ApiLoadBalancer&>(lbs[*i]), id).item : nullptr;
}

}  // namespace

const ApiLoadBalancer* ApiState::lb(std::string_view id) const {
  return find_to_read(loadbalancers, id, lb_in);
}

const ApiListener* ApiState::listener(std::string_view id) const {
  return find_to_read(loadbalancers, id, listener_in);
}

const ApiPool* ApiState::pool(std::string_view id) const {
  return find_to_read(loadbalancers, id, pool_in);
}

const ApiMember* ApiState::member(std::string_view id) const {
  return find_to_read(loadbalancers, id, member_in);
}

const ApiHealthMonitor* ApiState::monitor(std::string_view id) const {
  return find_to_read(loadbalancers, id, monitor_in);
}

bool ApiState::contains(std::string_view id) const { return holder(id) != nullptr; }

const ApiLoadBalancer* ApiState::holder(std::string_view id, std::string_view kind) const {
  const auto in = [&](ApiLoadBalancer& lb) -> bool {
    if (kind == "loadbalancers") return bool(lb_in(lb, id));
    if (kind == "listeners") return bool(listener_in(lb, id));
    if (kind == "pools") return bool(pool_in(lb, id));
    if (kind == "members") return bool(member_in(lb, id));
    if (kind == "healthmonitors") return bool(monitor_in(lb, id));
    return lb_in(lb, id) || listener_in(lb, id) || pool_in(lb, id) || member_in(lb, id) ||
           monitor_in(lb, id);
  };
  for (const ApiLoadBalancer& lb : loadbalancers) {
    if (in(const_cast<ApiLoadBalancer&>(lb))) return &lb;  // read only, as holder_index()
  }
  return nullptr;
}

ApiIndex::ApiIndex(const ApiState& state) {
  for (const ApiLoadBalancer& lb : state.loadbalancers) {
    lbs_.emplace(lb.id, &lb);
    for (const ApiListener& l : lb.listeners) listeners_.emplace(l.id, &l);
    for (const ApiPool& p : lb.pools) {
      pools_.emplace(p.id, &p);
      if (p.healthmonitor) monitors_.emplace(p.healthmonitor->id, &*p.healthmonitor);
      for (const ApiMember& m : p.members) members_.emplace(m.id, &m);
    }
  }
}

}  // namespace vigil::admin
