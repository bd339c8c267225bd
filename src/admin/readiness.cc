#include "admin/readiness.h"

#include <algorithm>

namespace vigil::admin {
namespace {

Response plain(int status, std::string body) {
  Response r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(body);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

const model::PoolView* find_pool(const model::LoadBalancerView& lb, const std::string& id) {
  auto it = std::ranges::find(lb.pools, id, &model::PoolView::id);
  return it == lb.pools.end() ? nullptr : &*it;
}

// One listener's line; `ready` is cleared when it has nowhere to send a connection.
std::string listener_line(const model::LoadBalancerView& lb, const model::ListenerView& l,
                          bool& ready) {
  // A listener with no pool, or a pool with no member, is one being built (Octavia creates the
  // listener, then the pool, then each member) or left empty on purpose: every node of a pair
  // or fleet holds the same, so none would serve it better. Counting it made both nodes of a
  // pair not ready while Octavia built a load balancer, and keepalived dropped every address
  // for 4.8-6.4 s (2026-12-05, tests/system/test_octavia_pair.py).
  const model::PoolView* pool = find_pool(lb, l.default_pool_id);
  if (pool == nullptr) return "idle " + l.config.name + ": no pool\n";
  const size_t members = pool->members.size();
  if (members == 0)
    return "idle " + l.config.name + ": pool " + pool->config.name + " has no members\n";
  const auto usable =
      static_cast<size_t>(std::ranges::count_if(pool->members, &model::MemberView::in_rotation));
  // Fail-open routes to the members that still take connections: a connection has a chance
  // there, so keep the address here.
  if (pool->fail_open_active && usable > 0) {
    return "fail-open " + l.config.name + ": no member healthy in pool " + pool->config.name +
           ", routing to the " + std::to_string(usable) + " of " + std::to_string(members) +
           " that take connections\n";
  }
  if (usable == 0) {
    ready = false;
    return "down " + l.config.name + ": no usable member (pool " + pool->config.name + " has " +
           std::to_string(members) + " members)\n";
  }
  return "ok " + l.config.name + ": " + std::to_string(usable) + "/" + std::to_string(members) +
         " members usable\n";
}

}  // namespace

Response healthz(const std::optional<std::string>& problem) {
  if (problem) return plain(503, "not serving: " + *problem + "\n");
  return plain(200, "ok\n");
}

Response readyz(const std::vector<model::LoadBalancerView>& lbs,
                const std::optional<std::string>& store_problem) {
  bool ready = !store_problem;
  std::string lines = store_problem ? "down store: " + *store_problem + "\n" : "";
  for (const model::LoadBalancerView& lb : lbs) {
    for (const model::ListenerView& l : lb.listeners) lines += listener_line(lb, l, ready);
  }
  return plain(ready ? 200 : 503, (ready ? "ready\n" : "not ready\n") + lines);
}

}  // namespace vigil::admin
