#include "admin/routes.h"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "admin/auth.h"
#include "admin/member_admin.h"
#include "admin/metrics.h"
#include "admin/octavia/local_network.h"
#include "admin/octavia/reads.h"
#include "admin/octavia/views.h"
#include "admin/octavia/writes.h"
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

// The browser page cannot send a header, so `/` alone also takes `?token=`.
std::optional<Response> check_token(const Request& request, const Target& target,
                                    std::string_view token) {
  std::string presented(presented_token(request.x_auth_token, request.authorization));
  if (presented.empty() && target.segments.empty()) presented = target.param("token").value_or("");
  if (token.empty()) return fault(401, "no admin token configured (admin.token_file)");
  if (!token_matches(token, presented)) return fault(401, "Authentication required");
  return std::nullopt;
}

std::string joined_path(const Segments& segments) {
  std::string out;
  for (const std::string& s : segments) out += "/" + s;
  return out.empty() ? "/" : out;
}

Response authenticated(const Request& request, const Target& target, const RouteContext& ctx) {
  const Segments& s = target.segments;
  const bool get = request.method == "GET";
  const bool v2 = s.size() >= 2 && (s[0] == "v2" || s[0] == "v2.0");
  // The views are asked for only by routes that show state.
  auto views = [&] { return merged_views(ctx.views(), ctx.store); };
  if (v2 && s[1] == "lbaas") {
    const std::vector<model::LoadBalancerView> lbs = views();
    const Catalog catalog(lbs, ctx.store);
    if (get) return route_octavia(target, catalog);
    return route_octavia_write(request, target, catalog, ctx);
  }
  // What `openstack loadbalancer create --vip-subnet-id` looks up through Neutron.
  if (v2) {
    if (auto r = route_neutron(request.method, target)) return *r;
  }
  if (s.empty()) {
    if (!get) return method_not_allowed();
    Response r = text(200, "text/html; charset=utf-8", status_page(views(), ctx.now));
    // The page has no scripts and no external assets; the policy keeps it that way.
    r.headers.emplace_back("Content-Security-Policy",
                           "default-src 'none'; style-src 'unsafe-inline'");
    r.headers.emplace_back("Cache-Control", "no-store");
    return r;
  }
  if (s == Segments{"v1", "status"}) {
    if (!get) return method_not_allowed();
    return text(200, "application/json", status_json(views(), ctx.now));
  }
  if (s == Segments{"v1", "reload"}) {
    if (request.method != "POST" || ctx.reload == nullptr) return method_not_allowed();
    if (auto reloaded = (*ctx.reload)(); !reloaded) return fault(409, reloaded.error().message);
    return text(200, "application/json", "{\"reloaded\": true}");
  }
  if (s == Segments{"v1", "upgrade"}) {
    if (request.method != "POST" || ctx.upgrade == nullptr) return method_not_allowed();
    auto pid = (*ctx.upgrade)();
    if (!pid) return fault(409, pid.error().message);
    return text(200, "application/json",
                "{\"upgrading\": true, \"pid\": " + std::to_string(*pid) + "}");
  }
  if (auto r = route_member_admin(request, target, ctx)) return *r;
  if (auto r = route_sessions(request, target, ctx)) return *r;
  if (s == Segments{"metrics"}) {
    if (!get) return method_not_allowed();
    return text(200, "text/plain; version=0.0.4; charset=utf-8", metrics_text(views(), ctx.now));
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
    if (ctx.stopping && (*ctx.stopping)()) {
      return text(503, "text/plain; charset=utf-8", "draining for a stop\n");
    }
    const std::optional<std::string> problem =
        ctx.serving ? (*ctx.serving)() : std::optional<std::string>();
    // Not serving answers both alike, without building the views.
    if (target.segments[0] == "healthz" || problem) return healthz(problem);
    return readyz(merged_views(ctx.views(), ctx.store));
  }
  if (auto denied = check_token(request, target, ctx.token)) return *denied;
  return authenticated(request, target, ctx);
}

}  // namespace vigil::admin
