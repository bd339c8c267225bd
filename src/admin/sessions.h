// The admin routes of established sessions: GET /v1/sessions?pool=P&member=M and POST
// /v1/sessions/kill (docs/api.md). They resolve names to member ids against the views, then
// answer later, once the daemon has asked its workers. Control thread, called by route().
#pragma once

#include <optional>

#include "admin/http.h"
#include "admin/target.h"

namespace vigil::admin {

// At most this many sessions are listed; `truncated` says when more match.
inline constexpr size_t kMaxListedSessions = 10'000;

// GET /v1/sessions?pool=P&member=M and POST /v1/sessions/kill (routes.cc's table matched the
// path and the method).
Response list_sessions(const Target& target, const RouteContext& ctx);
Response kill_sessions(const Request& request, const RouteContext& ctx);

}  // namespace vigil::admin
