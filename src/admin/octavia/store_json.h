// The state file's format: {"version": 1, "loadbalancers": [...], "member_overrides": {...}},
// each load balancer with its listeners and pools, each pool with its members and health monitor,
// under Octavia's field names; member_overrides (absent when there are none) by member id. Loading
// runs every object through the API's own validation (fields.h), so a state file never holds what
// the API would refuse. Pure; any thread.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "admin/octavia/objects.h"
#include "base/error.h"

namespace vigil::admin {

inline constexpr int kStateVersion = 1;

std::string state_to_json(const ApiState& state);

// One load balancer as state_to_json() writes it, and the whole file from its load balancers'
// (in order; ObjectStore keeps them, so that a write serializes only what it changed):
// state_to_json(s) == state_to_json(each lb_to_json(s.loadbalancers[i]), s.member_overrides).
std::string lb_to_json(const ApiLoadBalancer& lb);
std::string state_to_json(std::span<const std::string> lbs, const ApiState::Overrides& overrides);

// The error names the object and field: "loadbalancers[0].pools[1].members[2]: Invalid input
// for field/attribute protocol_port. Value: '70000'. Value should be lower or equal to 65535".
Result<ApiState> state_from_json(std::string_view text);

}  // namespace vigil::admin
