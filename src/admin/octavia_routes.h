// The read-only Octavia v2 subset under /v2/lbaas and /v2.0/lbaas: lists with `id` and `name`
// filters, shows, the status tree and stats. Writes answer 409 (the object comes from the config
// file) or 405. Pure; called by route() on the control thread.
#pragma once

#include <string_view>

#include "admin/routes.h"
#include "admin/target.h"

namespace vigil::admin {

// Requires: target.segments starts with "v2" or "v2.0", then "lbaas".
Response route_octavia(std::string_view method, const Target& target,
                       const model::LoadBalancerView& lb);

}  // namespace vigil::admin
