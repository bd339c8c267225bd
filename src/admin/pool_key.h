// How the admin API names a pool in a path (/v1/pools/{pool}/...): its id, its name (unique
// across load balancers), or "LB/POOL" (the load balancer's name or id, then the pool's name).
// Parsed once, matched against pools by the route (member_admin.cc) and by the control plane
// when it narrows its views to the pools a key can name (ControlPlane::views).
#pragma once

#include <string_view>

namespace vigil::admin {

struct PoolKey {
  std::string_view lb;  // empty: any load balancer
  std::string_view pool;

  static PoolKey parse(std::string_view key) {
    if (const size_t slash = key.find('/'); slash != std::string_view::npos) {
      return {.lb = key.substr(0, slash), .pool = key.substr(slash + 1)};
    }
    return {.pool = key};
  }
  bool names_lb(std::string_view name, std::string_view id) const {
    return lb.empty() || lb == name || lb == id;
  }
  bool names_pool(std::string_view id, std::string_view name) const {
    return pool == id || pool == name;
  }
};

}  // namespace vigil::admin
