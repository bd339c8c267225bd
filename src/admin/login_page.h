// The status page's sign-in form: one password field for the admin token (or the read-only
// one), posted to /login, which answers with a session cookie. Pure; any thread.
#pragma once

#include <string>
#include <string_view>

namespace vigil::admin {

// `message`: why the last attempt failed ("wrong token"), shown above the form; empty: none.
std::string login_page(std::string_view message);

}  // namespace vigil::admin
