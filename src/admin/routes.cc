#include "admin/routes.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <memory>

#include "admin/auth.h"
#include "admin/cookie.h"
#include "admin/login_sessions.h"
#include "admin/member_admin.h"
#include "admin/metrics.h"
#include "admin/octavia/local_network.h"
#include "admin/octavia/reads.h"
#include "admin/octavia/views.h"
#include "admin/octavia/writes.h"
#include "admin/page_routes.h"
#include "admin/page_style.h"
#include "admin/readiness.h"
#include "admin/sessions.h"
#include "admin/status_json.h"
#include "admin/status_page.h"
#include "admin/target.h"

namespace vigil::admin {
namespace {

using Segments = std::vector<std::string>;

Response method_not_allowed() {
  Response r = fault(405, "Method not allowed: this path only answers GET");
  r.headers.emplace_back("Allow", "GET");
  return r;
}

Response text(int status, std::string content_type, std::string body) {
  Response r;
  r.status = status;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

// Builds an answer from the daemon's views merged with the API's objects, on the render thread.
// The control thread has taken the daemon's views, copied from what it owns; here it takes a copy
// of the API's state (copy on write makes it cheap: its load balancers are shared until a write
// changes one). The answer is the state as it was when asked. Requires ctx.render.
using FromViews =
    std::function<Response(const std::vector<model::LoadBalancerView>&, const ApiState*)>;
Response merged_later(const RouteContext& ctx, std::vector<model::LoadBalancerView> daemon,
                      FromViews build) {
  Response r;
  r.later = [daemon = std::make_shared<std::vector<model::LoadBalancerView>>(std::move(daemon)),
             state = ctx.store != nullptr ? std::make_shared<const ApiState>(ctx.store->state())
                                          : nullptr,
             build = std::move(build), run = *ctx.render](std::function<void(Response)> send) {
    run([daemon, state,
         build] { return build(merged_views(std::move(*daemon), state.get()), state.get()); },
        std::move(send));
  };
  return r;
}

// A text built from the views: off the control thread when the server can (the /metrics of
// 10,000 load balancers of three members is 200 MB and would keep /healthz waiting), on it
// otherwise.
using Render = std::string (*)(const std::vector<model::LoadBalancerView>&, model::WallTime);
Response rendered(const RouteContext& ctx, std::vector<model::LoadBalancerView> daemon,
                  std::string content_type, Render render) {
  if (ctx.render == nullptr) {
    return text(200, std::move(content_type),
                render(merged_views(std::move(daemon), ctx.store), ctx.now));
  }
  return merged_later(ctx, std::move(daemon),
                      [now = ctx.now, content_type = std::move(content_type), render](
                          const std::vector<model::LoadBalancerView>& lbs, const ApiState*) {
                        return text(200, content_type, render(lbs, now));
                      });
}

// An Octavia GET, from the views without the members' last hour (Octavia shows none of it). A
// whole list renders every object of its kind (at 10,000 load balancers, 0.3-0.8 s and megabytes
// of JSON): off the control thread when the server can, where its lookups use an index made from
// the state's copy.
Response octavia_read(const Target& target, std::vector<model::LoadBalancerView> daemon,
                      const RouteContext& ctx) {
  const bool whole_list = target.segments.size() == 3;
  if (ctx.render == nullptr || !whole_list) {
    const auto lbs = merged_views(std::move(daemon), ctx.store);
    return route_octavia(target, Catalog(lbs, ctx.store, ctx.default_project));
  }
  return merged_later(ctx, std::move(daemon),
                      [target, project = std::string(ctx.default_project)](
                          const std::vector<model::LoadBalancerView>& lbs, const ApiState* state) {
                        return route_octavia(
                            target, Catalog(lbs, state, project, Catalog::Lookup::kIndexNow));
                      });
}

// Who asks: a token in a header (tools), else the status page's sign-in cookie (browsers).
struct Caller {
  Access access = Access::kNone;
  bool presented_token = false;
  const LoginSessions::Session* session = nullptr;
};

Caller caller_of(const Request& request, const RouteContext& ctx) {
  const std::string_view presented = presented_token(request.x_auth_token, request.authorization);
  if (!presented.empty()) {
    return {.access = access_of(ctx.token, ctx.read_token, presented), .presented_token = true};
  }
  if (ctx.logins == nullptr) return {};
  const auto* session = ctx.logins->find(cookie_value(request.cookie, kSessionCookie), ctx.now);
  if (session == nullptr) return {};
  return {.access = session->access, .session = session};
}

std::optional<Response> check_access(const Request& request, const Target& target,
                                     const Caller& caller, const RouteContext& ctx) {
  if (ctx.token.empty() && ctx.read_token.empty()) {
    return fault(401, "no admin token configured (admin.token_file)");
  }
  const Access needed = required_access(request.method);
  // A cookie is sent by the browser on its own: it may only read. The page's buttons post
  // to /page/member, which checks the form's CSRF token.
  if (caller.session != nullptr && needed == Access::kWrite) {
    return fault(401,
                 "Authentication required: the status page's sign-in only reads; changes take "
                 "the token in X-Auth-Token or Authorization: Bearer");
  }
  if (caller.access == Access::kNone) {
    // A browser opening the page is shown the sign-in form.
    if (!caller.presented_token && target.segments.empty() && ctx.logins != nullptr &&
        needed == Access::kRead) {
      return see_other("/login");
    }
    return fault(401, "Authentication required");
  }
  if (needed == Access::kWrite && caller.access != Access::kWrite) {
    return fault(403,
                 "Forbidden: the read-only token (admin.read_token_file) cannot change anything; "
                 "use the token of admin.token_file");
  }
  return std::nullopt;
}

std::string joined_path(const Segments& segments) {
  std::string out;
  for (const std::string& s : segments) out += "/" + s;
  return out.empty() ? "/" : out;
}

Response authenticated(const Request& request, const Target& target, const RouteContext& ctx,
                       const Caller& caller) {
  const Segments& s = target.segments;
  const bool get = request.method == "GET";
  const bool v2 = s.size() >= 2 && (s[0] == "v2" || s[0] == "v2.0");
  // The views are asked for only by routes that show state.
  auto views = [&] { return merged_views(ctx.daemon.views({}), ctx.store); };
  // The daemon's views without the members' history, not yet merged with the API's objects.
  auto status_views = [&] { return ctx.daemon.views({.history = false}); };
  if (v2 && s[1] == "lbaas") {
    if (get) {
      return octavia_read(target, status_views(), ctx);
    }
    // A write of a pool, member or monitor names API objects: it is tried on the API's load
    // balancers alone, whose cost does not grow with the file's. Its 404 (an id it did not find)
    // is given again on every load balancer: a file object's answer is a 409 or a runtime
    // override. Nothing is written before an object is found. A load balancer or listener write
    // needs the file's ports from the start.
    const bool api_kind = s.size() >= 3 && (s[2] == "pools" || s[2] == "healthmonitors");
    // One that names its pool or monitor by id is tried on that object's load balancer alone:
    // ten thousand of them would be ten thousand views to build.
    const ApiLoadBalancer* holder = api_kind && s.size() >= 4 && ctx.store != nullptr
                                        ? ctx.store->state().holder(s[3], s[2])
                                        : nullptr;
    if (holder != nullptr) {
      Response r = route_octavia_write(
          request, target,
          Catalog(api_lb_views(ctx.daemon.views({.file = false, .lb_id = holder->id}), *ctx.store,
                               holder->id),
                  ctx.store, ctx.default_project),
          ctx);
      if (r.status != 404) return r;
    } else if (api_kind) {
      Response r =
          route_octavia_write(request, target,
                              Catalog(merged_views(ctx.daemon.views({.file = false}), ctx.store),
                                      ctx.store, ctx.default_project),
                              ctx);
      if (r.status != 404) return r;
    }
    // A write cannot change the config file's members: it need not copy them.
    const std::vector<model::LoadBalancerView> lbs =
        merged_views(ctx.daemon.views({.file_members = false}), ctx.store);
    return route_octavia_write(request, target, Catalog(lbs, ctx.store, ctx.default_project), ctx);
  }
  // What `openstack loadbalancer create --vip-subnet-id` looks up through Neutron.
  if (v2) {
    if (auto r = route_neutron(request.method, target)) return *r;
  }
  if (s.empty()) {
    if (!get) return method_not_allowed();
    // Buttons need a form that can prove it is ours: only a signed-in session has a CSRF token.
    const PageUser user{
        .access = caller.access,
        .signed_in = caller.session != nullptr,
        .csrf = caller.session != nullptr ? caller.session->csrf : std::string_view{}};
    Response r = text(200, "text/html; charset=utf-8", status_page(views(), ctx.now, user));
    // The page has no scripts and no external assets; the policy keeps it that way.
    r.headers.emplace_back("Content-Security-Policy", std::string(kPageContentSecurityPolicy));
    r.headers.emplace_back("X-Frame-Options", "DENY");
    r.headers.emplace_back("Cache-Control", "no-store");
    return r;
  }
  if (s == Segments{"v1", "status"}) {
    if (!get) return method_not_allowed();
    return rendered(ctx, status_views(), "application/json", &status_json);
  }
  if (s == Segments{"v1", "reload"}) {
    if (request.method != "POST") return method_not_allowed();
    auto reloaded = ctx.daemon.reload();
    if (!reloaded) return fault(409, reloaded.error().message);
    boost::json::array warnings(reloaded->begin(), reloaded->end());
    return text(200, "application/json",
                boost::json::serialize(
                    boost::json::object{{"reloaded", true}, {"warnings", std::move(warnings)}}));
  }
  if (s == Segments{"v1", "upgrade"}) {
    if (request.method != "POST") return method_not_allowed();
    auto pid = ctx.daemon.upgrade();
    if (!pid) return fault(409, pid.error().message);
    return text(200, "application/json",
                "{\"upgrading\": true, \"pid\": " + std::to_string(*pid) + "}");
  }
  if (auto r = route_member_admin(request, target, ctx)) return *r;
  if (auto r = route_sessions(request, target, ctx)) return *r;
  if (s == Segments{"metrics"}) {
    if (!get) return method_not_allowed();
    return rendered(ctx, status_views(), "text/plain; version=0.0.4; charset=utf-8", &metrics_text);
  }
  return fault(404, "Not found: " + joined_path(s));
}

}  // namespace

Response route(const Request& request, const RouteContext& ctx) {
  const Target target = parse_target(request.target);
  // No token: keepalived's vrrp_script (vigil health) and systemd probe them; they reveal
  // listener names and member counts at most.
  if (target.segments == Segments{"healthz"} || target.segments == Segments{"readyz"}) {
    if (request.method != "GET") return method_not_allowed();
    // A load balancer in front of vigil, or keepalived, moves traffic away during the grace.
    if (ctx.daemon.stopping()) {
      return text(503, "text/plain; charset=utf-8", "draining for a stop\n");
    }
    const std::optional<std::string> problem = ctx.daemon.serving();
    // Not serving answers both alike, without building the views.
    if (target.segments[0] == "healthz" || problem) return healthz(problem);
    return readyz(merged_views(ctx.daemon.views({}), ctx.store));
  }
  // The sign-in form and the page's buttons check what they need themselves.
  if (auto page = route_page(request, target, ctx)) return *page;
  const Caller caller = caller_of(request, ctx);
  if (auto denied = check_access(request, target, caller, ctx)) return *denied;
  return authenticated(request, target, ctx, caller);
}

}  // namespace vigil::admin
