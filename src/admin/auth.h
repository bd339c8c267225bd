// Admin credentials: which token a request presents, which access it grants (the write token of
// admin.token_file or the read-only one of admin.read_token_file), and what a request needs.
// Pure functions; any thread.
#pragma once

#include <string_view>

namespace vigil::admin {

// kRead: every GET (status, metrics, the page, Octavia reads). kWrite: everything.
enum class Access { kNone, kRead, kWrite };

// The token of `X-Auth-Token: T` (what the openstack CLI sends) or else of
// `Authorization: Bearer T`; empty when the request carries neither.
std::string_view presented_token(std::string_view x_auth_token, std::string_view authorization);

// True when `presented` equals `expected`, taking the same time whatever the inputs' contents or
// lengths. An empty `expected` (no token configured) never matches.
bool token_matches(std::string_view expected, std::string_view presented);

// What `presented` grants: `write` is admin.token_file's token, `read` admin.read_token_file's
// (either may be empty: not configured). Both are compared every time, so the answer's timing
// does not tell which one matched.
Access access_of(std::string_view write, std::string_view read, std::string_view presented);

// What a request with this method needs: reads for GET and HEAD, writes for the rest.
Access required_access(std::string_view method);

}  // namespace vigil::admin
