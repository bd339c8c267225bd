// What a browser does on the status page besides reading it: sign in with a token through a form
// (GET and POST /login), sign out (POST /logout), and the write token's buttons
// (POST /page/member, /page/sessions). Pure but for the login sessions and the daemon; control
// thread, called by route() (routes.cc's table), which has refused a cross-site POST already; each
// checks the session and the form's CSRF token itself. Requires: ctx.logins.
#pragma once

#include <optional>

#include "admin/http.h"
#include "admin/target.h"

namespace vigil::admin {

// GET /login: the sign-in form, or the page itself for a browser signed in already.
Response login_form(const Request& request, const RouteContext& ctx);
// POST /login: signs in with the form's token and sets the session cookie.
Response sign_in(const Request& request, const RouteContext& ctx);
// POST /logout: ends the session (its form's CSRF token must match).
Response logout(const Request& request, const RouteContext& ctx);
// POST /page/member: a drain/maint/ready button, what `vigil member drain|maint|ready` does, for
// a session of the write token.
Response member_button(const Request& request, const RouteContext& ctx);
// POST /page/sessions: the Kill sessions button. Without confirm=yes it answers with the
// confirmation form (kill_confirm_page.h); with it, closes the member's sessions as `vigil
// sessions kill --member` does and sends the browser back to the page.
Response sessions_button(const Request& request, const RouteContext& ctx);
// The 405s of those paths.
Response login_not_allowed();
Response page_post_only();

// 303 See Other to `location`.
Response see_other(std::string location);

}  // namespace vigil::admin
