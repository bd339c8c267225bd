// Octavia's per-project quotas: the body of PUT /v2/lbaas/quotas/{project_id}, the quota a
// project has (Octavia's default, -1 unlimited, for what was never set), and how the state file
// keeps them. Pure; any thread.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string_view>

#include "admin/octavia/objects.h"

namespace vigil::admin {

// Octavia's [quotas] default_*_quota: unlimited.
inline constexpr int kDefaultQuota = -1;
// octavia.common.constants MIN_QUOTA and MAX_QUOTA.
inline constexpr int kMinQuota = -1;
inline constexpr int kMaxQuota = 2'000'000'000;

// {"load_balancer": -1, "listener": 5, ...}: every kind, its default where none was set.
boost::json::object quota_json(const ApiQuota& q);

// `current` as a PUT body changes it (Octavia updates only the fields given; null resets one to
// the default; the deprecated `loadbalancer` and `healthmonitor` name the same fields), or
// Octavia's 400 for a bad body or value.
ApiResult<ApiQuota> updated_quota(std::string_view body, ApiQuota current);

// Octavia's 403 "Quota has been met for resources: Listener" when a write made `after` hold more
// objects of a kind for some project than its quota allows, and more than `before` held (so
// a quota lowered below what a project has does not block its updates and deletes). Objects
// count for their load balancer's project, as Octavia's children share it. Only projects given
// quotas are counted.
std::optional<ApiError> quota_met(const ApiState& before, const ApiState& after);

// The state file's form: only the fields set; and back, validated as a request is. The error
// names the field.
boost::json::object quota_to_state(const ApiQuota& q);
ApiResult<ApiQuota> quota_from_state(const boost::json::object& o, std::string_view where);

}  // namespace vigil::admin
