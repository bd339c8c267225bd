// The JSON forms of a member's admin override: {"state", "weight", "set_at", "by"} as /v1/status,
// the admin route and admin.state_file show it, and the admin route's request body. Pure; any
// thread.
#pragma once

#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.h"
#include "model/admin_override.h"

namespace vigil::admin {

// null without an override; set_at in the vigil-native UTC form, "2024-05-01T12:00:00Z".
boost::json::value override_json(const std::optional<model::AdminOverride>& o);
// The form override_json() writes; the error names the field.
Result<model::AdminOverride> override_from_json(const boost::json::value& v);

// PUT /v1/pools/{pool}/members/{member}/admin: {"state": "drain"|"maint"|"ready", "weight": N,
// "by": "who"}, state or weight or both; `by` is optional (default "API"), shown as "set by".
struct OverrideRequest {
  std::optional<model::AdminState> state;
  std::optional<int> weight;
  std::string by = "API";
};
// The error is the 400's message: "state must be drain, maint or ready (got \"off\")".
Result<OverrideRequest> parse_override_request(std::string_view body);

// Who set an override that came over the admin Unix socket: the client's own label with the user
// the kernel names in place of any it claimed, "CLI (mallory)" by alice being "CLI (alice)", "API"
// being "API (alice)"; root's claim is kept beside it, "CLI (alice)" by root (sudo) being
// "CLI (root, for alice)". Over TCP (`peer_user` empty) the claim stands as it is.
std::string credited_by(std::string_view claimed, std::string_view peer_user);

}  // namespace vigil::admin
