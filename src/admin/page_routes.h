// What a browser does on the status page besides reading it: sign in with a token through a form
// (GET and POST /login), sign out (POST /logout), and the write token's buttons
// (POST /page/member). Pure but for the login sessions and the override callback; control thread,
// called by route() before any token check (each route checks what it needs itself).
#pragma once

#include <optional>

#include "admin/http.h"
#include "admin/target.h"

namespace vigil::admin {

// The answer for /login, /logout and /page/...; none for any other target, or when the context
// has no login sessions.
std::optional<Response> route_page(const Request& request, const Target& target,
                                   const RouteContext& ctx);

// 303 See Other to `location`.
Response see_other(std::string location);

}  // namespace vigil::admin
