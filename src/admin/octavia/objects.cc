#include "admin/octavia/objects.h"

namespace vigil::admin {

ApiLoadBalancer* ApiState::find_lb(std::string_view id) {
  for (ApiLoadBalancer& lb : loadbalancers) {
    if (lb.id == id) return &lb;
  }
  return nullptr;
}

const ApiLoadBalancer* ApiState::find_lb(std::string_view id) const {
  return const_cast<ApiState&>(*this).find_lb(id);
}

ApiState::Found<ApiListener> ApiState::find_listener(std::string_view id) {
  for (ApiLoadBalancer& lb : loadbalancers) {
    for (ApiListener& l : lb.listeners) {
      if (l.id == id) return {.lb = &lb, .item = &l};
    }
  }
  return {};
}

ApiState::Found<ApiPool> ApiState::find_pool(std::string_view id) {
  for (ApiLoadBalancer& lb : loadbalancers) {
    for (ApiPool& p : lb.pools) {
      if (p.id == id) return {.lb = &lb, .item = &p, .pool = &p};
    }
  }
  return {};
}

ApiState::Found<ApiMember> ApiState::find_member(std::string_view id) {
  for (ApiLoadBalancer& lb : loadbalancers) {
    for (ApiPool& p : lb.pools) {
      for (ApiMember& m : p.members) {
        if (m.id == id) return {.lb = &lb, .item = &m, .pool = &p};
      }
    }
  }
  return {};
}

ApiState::Found<ApiHealthMonitor> ApiState::find_monitor(std::string_view id) {
  for (ApiLoadBalancer& lb : loadbalancers) {
    for (ApiPool& p : lb.pools) {
      if (p.healthmonitor && p.healthmonitor->id == id) {
        return {.lb = &lb, .item = &*p.healthmonitor, .pool = &p};
      }
    }
  }
  return {};
}

bool ApiState::contains(std::string_view id) const {
  // The finders do not modify; one set of them serves both constnesses.
  auto& self = const_cast<ApiState&>(*this);
  return self.find_lb(id) != nullptr || self.find_listener(id) || self.find_pool(id) ||
         self.find_member(id) || self.find_monitor(id);
}

const ApiLoadBalancer* ApiState::holder(std::string_view id) const {
  auto& self = const_cast<ApiState&>(*this);  // as contains()
  if (const ApiLoadBalancer* lb = self.find_lb(id)) return lb;
  if (auto l = self.find_listener(id)) return l.lb;
  if (auto p = self.find_pool(id)) return p.lb;
  if (auto m = self.find_member(id)) return m.lb;
  if (auto h = self.find_monitor(id)) return h.lb;
  return nullptr;
}

}  // namespace vigil::admin
