// Stable object ids: UUIDv5 (RFC 4122, SHA-1) of an object's path of names, so that a YAML file's
// load balancer, listeners, pools and members keep their ids across restarts and reloads.
#pragma once

#include <string>
#include <string_view>

namespace vigil::model {

// uuid_v5("vigil/lb/NAME") etc.; lower-case 8-4-4-4-12 form.
std::string uuid_v5(std::string_view name);

std::string load_balancer_id(std::string_view lb);
std::string listener_id(std::string_view lb, std::string_view listener);
std::string pool_id(std::string_view lb, std::string_view pool);
std::string member_id(std::string_view lb, std::string_view pool, std::string_view member);
std::string health_monitor_id(std::string_view lb, std::string_view pool);

}  // namespace vigil::model
