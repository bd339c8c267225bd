// Octavia writes under /v2/lbaas and /v2.0/lbaas: POST (201), PUT (200) and DELETE (204) of load
// balancers, listeners, pools, members and health monitors created through the API. Each write
// validates and changes a copy of the store (ops.h), has the daemon apply the result, then
// saves it to the state file, and only then answers; a refusal at any step leaves everything as
// it was. Objects of the config file answer 409, but for a runtime override of a member's weight
// and admin_state_up (member_set.h). Control thread.
#pragma once

#include "admin/http.h"
#include "admin/octavia/reads.h"
#include "admin/target.h"

namespace vigil::admin {

// Requires: target.segments starts with "v2" or "v2.0", then "lbaas"; request.method is not GET.
// `catalog` shows the state before the write.
Response route_octavia_write(const Request& request, const Target& target, const Catalog& catalog,
                             const RouteContext& context);

// Octavia's (oslo's) reading of ?cascade=: 1, t, true, on, y, yes, any case.
bool bool_from_string(std::string_view text);

}  // namespace vigil::admin
