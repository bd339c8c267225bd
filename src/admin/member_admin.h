// The admin route of one member's runtime override: GET and PUT
// /v1/pools/{pool}/members/{member}/admin (docs/api.md). Pure but for the daemon it asks;
// control thread, called by route().
#pragma once

#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "admin/http.h"
#include "admin/target.h"
#include "model/status_tree.h"

namespace vigil::admin {

// GET or PUT /v1/pools/{pool}/members/{member}/admin (routes.cc's table matched the path and
// the method).
Response member_admin(const Request& request, const Target& target, const RouteContext& ctx);

// A member found by pool and member key (below), or what to answer: 404, or 409 when a name is
// ambiguous. The pool key is a pool id, a pool name unique across load balancers, or
// "LB/POOL" (load balancer name or id, then the pool's name); the member key is an id or a name
// unique in its pool.
struct FoundMember {
  const model::LoadBalancerView* lb = nullptr;
  const model::PoolView* pool = nullptr;
  const model::MemberView* member = nullptr;
};
std::variant<FoundMember, Response> find_member(const std::vector<model::LoadBalancerView>& lbs,
                                                std::string_view pool_key,
                                                std::string_view member_key);

// Sets the member's state as `vigil member drain|maint|ready` does (its weight override stays):
// what the status page's buttons do. The answer to give instead when it cannot (405, 500).
std::optional<Response> set_member_state(const FoundMember& f, model::AdminState state,
                                         std::string_view by, const RouteContext& ctx);

}  // namespace vigil::admin
