// The admin API's routing: one request in, one response out, without sockets, so that every
// route is testable alone; the routes are a table (routes.cc, route_table.h). Called by
// AdminServer on the control thread (the daemon is called there); apart from the daemon and the
// object store's writes, the functions are pure.
#pragma once

#include "admin/http.h"

namespace vigil::admin {

Response route(const Request& request, const RouteContext& context);

}  // namespace vigil::admin
