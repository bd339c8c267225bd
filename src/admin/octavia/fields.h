// The fields of each Octavia object in a create (POST) or update (PUT) request: names, types,
// ranges, defaults and the fields vigil refuses, following Octavia's API reference. Relations
// (loadbalancer_id, listener_id, pool_id, default_pool_id) are left to ops.cc, which knows
// the state. Pure; any thread.
#pragma once

#include <optional>
#include <string_view>

#include "admin/octavia/json_fields.h"
#include "admin/octavia/objects.h"

namespace vigil::admin {

enum class Mode { kCreate, kUpdate };

// Each reads the fields its Mode allows from `r` into `out`: on create, `out` starts with the
// defaults and mandatory fields are checked; on update, `out` is the current object and a null
// resets a field to its default, as Octavia does. Errors are left in `r`.
void read_loadbalancer(FieldReader& r, ApiLoadBalancer& out, Mode mode);
void read_listener(FieldReader& r, ApiListener& out, Mode mode);
void read_pool(FieldReader& r, ApiPool& out, Mode mode);
void read_member(FieldReader& r, ApiMember& out, Mode mode);
void read_healthmonitor(FieldReader& r, ApiHealthMonitor& out, Mode mode);
// A pool's session_persistence (persistence_fields.cc): SOURCE_IP, or null for none.
void read_session_persistence(FieldReader& r, ApiPool& out);

// Octavia's check of a listener's allowed_cidrs against its load balancer's VIP: every network
// of the VIP's IP version (400 otherwise). An empty or unparsable VIP passes.
std::optional<ApiError> cidrs_fit_vip(const ApiListener& l, std::string_view vip_address);

// An IPv4 or IPv6 literal.
bool is_ip_address(std::string_view text);

}  // namespace vigil::admin
