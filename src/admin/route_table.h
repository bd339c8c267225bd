// The admin API's routes as a table (routes.cc): each row a method, a path pattern, who may call
// it and the handler, the way Envoy's admin and HAProxy's CLI keywords register theirs, so that
// credentials, cross-site guards and 405s are applied in one place from the row rather than in
// each handler. Pure; control thread (the handlers call the daemon).
#pragma once

#include <span>
#include <string_view>

#include "admin/auth.h"
#include "admin/http.h"
#include "admin/login_sessions.h"
#include "admin/target.h"

namespace vigil::admin {

// Who may call a route. A method that changes something (auth.h required_access) needs the write
// token whatever the row says, so that a catch-all row cannot become a way around it.
enum class Guard {
  kNone,   // anyone: health probes, the sign-in form
  kRead,   // the read or the write token, or a browser signed in with either
  kWrite,  // the write token; never a browser's cookie, which the browser sends on its own
  kPage,   // as kRead, but a browser without credentials is sent to the sign-in form
  // A status page form's POST: refused here when cross-site; the handler checks the session and
  // the form's CSRF token.
  kForm,
};

// Who asks: a token in a header (tools), else the status page's sign-in cookie (browsers).
struct Caller {
  Access access = Access::kNone;
  bool presented_token = false;
  const LoginSessions::Session* session = nullptr;
};

// What a handler gets: the request, its parsed target and the daemon, and who asks.
struct Call {
  const Request& request;
  const Target& target;
  const RouteContext& ctx;
  const Caller& caller;
};

struct Route {
  std::string_view method;  // "GET"; "*": any method the rows of the same path above did not take
  // "/v1/pools/{pool}/members/{member}/admin": "{...}" is any one segment, "a|b" either literal,
  // and a trailing "*" any number of segments, none too.
  std::string_view path;
  Guard guard;
  Response (*handler)(const Call& call);
};

// True when `segments` (a Target's) match `pattern` (Route::path).
bool path_matches(std::string_view pattern, const std::vector<std::string>& segments);

// The rows of the first path in `table` that `segments` match (consecutive rows share a path), or
// an empty span when none does.
std::span<const Route> rows_of(std::span<const Route> table,
                               const std::vector<std::string>& segments);

// 405 for a path whose rows take none of the request's methods: "Method not allowed: this path
// only answers GET" with their methods in Allow.
Response method_not_allowed(std::span<const Route> rows);

}  // namespace vigil::admin
