// Admin token checks: which token a request presents, and whether it is the configured one.
// Pure functions; any thread.
#pragma once

#include <string_view>

namespace vigil::admin {

// The token of `X-Auth-Token: T` (what the openstack CLI sends) or else of
// `Authorization: Bearer T`; empty when the request carries neither.
std::string_view presented_token(std::string_view x_auth_token, std::string_view authorization);

// True when `presented` equals `expected`, taking the same time whatever the inputs' contents or
// lengths. An empty `expected` (no token configured) never matches.
bool token_matches(std::string_view expected, std::string_view presented);

}  // namespace vigil::admin
