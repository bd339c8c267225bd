#include "admin/page_routes.h"

#include <fmt/format.h>

#include <variant>

#include "admin/auth.h"
#include "admin/cookie.h"
#include "admin/kill_confirm_page.h"
#include "admin/login_page.h"
#include "admin/login_sessions.h"
#include "admin/member_admin.h"
#include "admin/octavia/views.h"
#include "admin/page_style.h"
#include "admin/sign_in_throttle.h"
#include "base/log.h"

namespace vigil::admin {
namespace {

Response html(int status, std::string body) {
  Response r;
  r.status = status;
  r.content_type = "text/html; charset=utf-8";
  r.body = std::move(body);
  r.headers.emplace_back("Content-Security-Policy", std::string(kPageContentSecurityPolicy));
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

// A form's fields: the body is application/x-www-form-urlencoded, a query string's syntax. A
// malformed one has no fields, and is refused for want of its token or CSRF field.
Target form_fields(std::string_view body) {
  Target out;
  if (auto query = parse_form(body)) out.query = std::move(*query);
  return out;
}

const LoginSessions::Session* session_of(const Request& request, const RouteContext& ctx,
                                         std::string_view* id = nullptr) {
  const std::string_view value = cookie_value(request.cookie, kSessionCookie);
  if (id != nullptr) *id = value;
  return ctx.logins->find(value, ctx.now);
}

}  // namespace

Response login_form(const Request& request, const RouteContext& ctx) {
  // Signed in already: the page itself.
  if (session_of(request, ctx) != nullptr) return see_other("/");
  return html(200, login_page(""));
}

Response login_not_allowed() {
  Response r = fault(405, "Method not allowed: /login answers GET and POST");
  r.headers.emplace_back("Allow", "GET, POST");
  return r;
}

Response page_post_only() {
  Response r = fault(405, "Method not allowed: this path only answers POST (the page's forms)");
  r.headers.emplace_back("Allow", "POST");
  return r;
}

Response sign_in(const Request& request, const RouteContext& ctx) {
  if (ctx.token.empty() && ctx.read_token.empty()) {
    return html(401, login_page("no admin token is configured (admin.token_file)"));
  }
  const std::string source(request.source);
  if (ctx.throttle != nullptr) {
    if (const auto wait = ctx.throttle->wait(source, ctx.now); wait.count() > 0) {
      // Not checked at all: a guess made while waiting tells the guesser nothing.
      Response r = html(
          429, login_page(fmt::format("too many wrong tokens from your address: try again in {} s",
                                      wait.count())));
      r.headers.emplace_back("Retry-After", std::to_string(wait.count()));
      return r;
    }
  }
  const std::string token = form_fields(request.body).param("token").value_or("");
  const Access access = access_of(ctx.token, ctx.read_token, token);
  if (access == Access::kNone) {
    // One line when a source starts waiting, not one per guess.
    if (ctx.throttle != nullptr && ctx.throttle->failed(source, ctx.now)) {
      log::warn(
          "admin API: {} wrong tokens at /login from {}: each further attempt from it waits, "
          "doubling up to {} s",
          SignInThrottle::kFree + 1, source, SignInThrottle::kMaxDelay.count());
    }
    return html(401, login_page("wrong token"));
  }
  if (ctx.throttle != nullptr) ctx.throttle->succeeded(source);
  const LoginSessions::Login made = ctx.logins->create(access, ctx.now);
  Response r = see_other("/");
  r.headers.emplace_back(
      "Set-Cookie",
      session_set_cookie(made.id, std::chrono::seconds(LoginSessions::kLifetime).count()));
  return r;
}

Response logout(const Request& request, const RouteContext& ctx) {
  std::string_view id;
  if (const auto* session = session_of(request, ctx, &id)) {
    if (!csrf_matches(*session, form_fields(request.body).param("csrf").value_or(""))) {
      return fault(403, "the form's CSRF token does not match: reload the page");
    }
    ctx.logins->end(id);
  }
  Response r = see_other("/login");
  r.headers.emplace_back("Set-Cookie", session_set_cookie("", 0));
  return r;
}

namespace {

// A button's form, from a session of the write token with the session's CSRF token; or the
// refusal.
std::variant<Target, Response> writers_form(const Request& request, const RouteContext& ctx) {
  const LoginSessions::Session* session = session_of(request, ctx);
  if (session == nullptr) return fault(401, "Authentication required: sign in at /login");
  Target form = form_fields(request.body);
  if (!csrf_matches(*session, form.param("csrf").value_or(""))) {
    return fault(403, "the form's CSRF token does not match: reload the page");
  }
  if (session->access != Access::kWrite) {
    return fault(403, "Forbidden: signed in with the read-only token (admin.read_token_file)");
  }
  return form;
}

}  // namespace

// A drain/maint/ready button: what `vigil member drain|maint|ready` does, for a session of the
// write token.
Response member_button(const Request& request, const RouteContext& ctx) {
  auto checked = writers_form(request, ctx);
  if (auto* refused = std::get_if<Response>(&checked)) return std::move(*refused);
  const Target& form = std::get<Target>(checked);
  const std::optional<model::AdminState> state =
      model::parse<model::AdminState>(form.param("state").value_or(""));
  if (!state) return fault(400, "state must be drain, maint or ready");
  const std::vector<model::LoadBalancerView> lbs = merged_views(ctx.daemon.views({}), ctx.store);
  auto found = find_member(lbs, form.param("pool").value_or(""), form.param("member").value_or(""));
  if (auto* r = std::get_if<Response>(&found)) return *r;
  if (auto failed = set_member_state(std::get<FoundMember>(found), *state, "status page", ctx)) {
    return *failed;
  }
  return see_other("/");
}

// The Kill sessions button: the confirmation form first, then, confirmed, what `vigil sessions
// kill --member M` does. The answer waits for the workers (Response::later).
Response sessions_button(const Request& request, const RouteContext& ctx) {
  auto checked = writers_form(request, ctx);
  if (auto* refused = std::get_if<Response>(&checked)) return std::move(*refused);
  const Target& form = std::get<Target>(checked);
  const std::vector<model::LoadBalancerView> lbs = merged_views(ctx.daemon.views({}), ctx.store);
  auto found = find_member(lbs, form.param("pool").value_or(""), form.param("member").value_or(""));
  if (auto* r = std::get_if<Response>(&found)) return *r;
  const FoundMember& f = std::get<FoundMember>(found);
  if (form.param("confirm").value_or("") != "yes") {
    return html(200, kill_confirm_page({.csrf = form.param("csrf").value_or(""),
                                        .pool_id = f.pool->id,
                                        .member_id = f.member->id,
                                        .pool = f.pool->config.name,
                                        .member = f.member->config.name,
                                        .sessions = f.member->active_connections}));
  }
  Response r;
  // The daemon logs how many it closed.
  r.later = [&daemon = ctx.daemon, id = f.member->id](std::function<void(Response)> send) {
    daemon.kill_sessions({id}, [send = std::move(send)](Result<size_t> killed) {
      send(killed ? see_other("/") : fault(503, killed.error().message));
    });
  };
  return r;
}

Response see_other(std::string location) {
  Response r;
  r.status = 303;
  r.content_type = "text/plain; charset=utf-8";
  r.body = "see " + location + "\n";
  r.headers.emplace_back("Location", std::move(location));
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

}  // namespace vigil::admin
