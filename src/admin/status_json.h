// The vigil-native picture of a load balancer served at GET /v1/status: every field of the view,
// for the CLI (cli/) and for scripts. Pure functions; any thread.
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <vector>

#include "model/status_tree.h"

namespace vigil::admin {

// {"generated_at", "loadbalancers": [{"loadbalancer", "listeners", "pools",
// "recent_transitions"}, ...]}, with the first load balancer's four fields also at the top level
// (what clients of one load balancer read); docs/api.md lists every field. `now` dates the answer
// and gives each member's state_seconds.
std::string status_json(const std::vector<model::LoadBalancerView>& lbs, model::WallTime now);
std::string status_json(const model::LoadBalancerView& lb, model::WallTime now);

// A member's last check: {result, http_code, duration_ms, detail, failed_checks, reason, at};
// null before the first check. Shared with the Octavia member's `vigil_check`.
boost::json::value check_json(const model::MemberView& m);

// One member as /v1/status shows it (the admin route answers with it too); `now` gives its
// state_seconds. admin_override: {state, weight, set_at, by}, or null.
boost::json::object member_json(const model::MemberView& m, model::WallTime now);

// An ISO-8601 timestamp, or null when the time is not set.
boost::json::value time_json(model::WallTime t);

}  // namespace vigil::admin
