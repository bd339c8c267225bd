// The status page's session cookie: reading it from a Cookie header and writing its Set-Cookie.
// Pure functions; any thread.
#pragma once

#include <string>
#include <string_view>

namespace vigil::admin {

inline constexpr std::string_view kSessionCookie = "vigil_session";

// The value of cookie `name` in a `Cookie: a=1; b=2` header; empty when absent.
std::string_view cookie_value(std::string_view header, std::string_view name);

// `vigil_session=ID; HttpOnly; SameSite=Strict; Path=/; Max-Age=N`: script cannot read it and
// no other site's page can make the browser send it. An empty `id` with max_age 0 deletes it.
// (No `Secure`: the admin listener speaks plain HTTP, where a browser would drop such a cookie.)
std::string session_set_cookie(std::string_view id, long max_age_seconds);

}  // namespace vigil::admin
