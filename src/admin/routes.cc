#include "admin/routes.h"

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>

#include "admin/auth.h"
#include "admin/cookie.h"
#include "admin/forwarded.h"
#include "admin/login_sessions.h"
#include "admin/member_admin.h"
#include "admin/metrics.h"
#include "admin/metrics_query.h"
#include "admin/octavia/collections.h"
#include "admin/octavia/local_network.h"
#include "admin/octavia/queued_write.h"
#include "admin/octavia/quota_writes.h"
#include "admin/octavia/reads.h"
#include "admin/octavia/views.h"
#include "admin/octavia/writes.h"
#include "admin/page_routes.h"
#include "admin/page_style.h"
#include "admin/readiness.h"
#include "admin/route_table.h"
#include "admin/same_origin.h"
#include "admin/sessions.h"
#include "admin/status_json.h"
#include "admin/status_page.h"
#include "admin/store_health.h"
#include "admin/target.h"
#include "base/log.h"

namespace vigil::admin {
namespace {

using Segments = std::vector<std::string>;

Response text(int status, std::string content_type, std::string body) {
  Response r;
  r.status = status;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

std::string joined_path(const Segments& segments) {
  std::string out;
  for (const std::string& s : segments) out += "/" + s;
  return out.empty() ? "/" : out;
}

// How many load balancers' views the control thread takes in one turn of its loop for a read of
// all of them. At 10,000 load balancers all at once took 80-143 ms, which every write that came
// meanwhile waited for; 100 take about a millisecond.
constexpr size_t kViewSlice = 100;

using Views = std::vector<model::LoadBalancerView>;

// The daemon's views without the members' history, taken a slice per turn of the control thread
// (Daemon::views_after), then `done` with all of them, on the control thread. A write that comes
// meanwhile runs between two slices: the views are each load balancer as it was when its slice was
// taken.
class Gathering : public std::enable_shared_from_this<Gathering> {
 public:
  Gathering(const Daemon& daemon, DeferFn defer, std::function<void(Views)> done)
      : daemon_(daemon), defer_(std::move(defer)), done_(std::move(done)) {}

  void next() {
    const size_t before = views_.size();
    cursor_ = daemon_.views_after({.history = false}, cursor_, kViewSlice, views_);
    // A reload between two slices gives every load balancer a new place (ControlPlane's order):
    // those already taken come again, and are left out.
    for (size_t i = before; i < views_.size();) {
      if (seen_.insert(views_[i].id).second) {
        ++i;
      } else {
        views_.erase(views_.begin() + static_cast<ptrdiff_t>(i));
      }
    }
    if (cursor_ == 0) return done_(std::move(views_));
    defer_([self = shared_from_this()] { self->next(); });
  }

 private:
  const Daemon& daemon_;
  DeferFn defer_;
  std::function<void(Views)> done_;
  Views views_;
  std::unordered_set<std::string> seen_;
  uint64_t cursor_ = 0;
};

// Builds an answer from the daemon's views merged with the API's objects, on the render thread.
// The control thread takes a copy of the API's state now (copy on write makes it cheap: its load
// balancers are shared until a write changes one), then the daemon's views a slice at a time
// (Gathering). Requires ctx.render.
using FromViews = std::function<Response(Views, const ApiState*)>;
Response merged_later(const RouteContext& ctx, FromViews build) {
  Response r;
  // Not ctx itself: the route's context is gone by the time `later` runs.
  r.later = [&daemon = ctx.daemon, defer = ctx.defer ? *ctx.defer : DeferFn(),
             state = ctx.store != nullptr ? std::make_shared<const ApiState>(ctx.store->state())
                                          : nullptr,
             build = std::move(build), run = *ctx.render](std::function<void(Response)> send) {
    auto merge = [state, build, run, send = std::move(send)](Views daemon) mutable {
      run([daemon = std::make_shared<Views>(std::move(daemon)), state,
           build] { return build(merged_views(std::move(*daemon), state.get()), state.get()); },
          std::move(send));
    };
    if (!defer) return merge(daemon.views({.history = false}));
    std::make_shared<Gathering>(daemon, std::move(defer), std::move(merge))->next();
  };
  return r;
}

// A text built from the views without the members' history: off the control thread when the
// server can (the /v1/status of 10,000 load balancers is 72 MB of JSON and would keep /healthz
// waiting), on it otherwise.
using Render = std::string (*)(const std::vector<model::LoadBalancerView>&, model::WallTime);
Response rendered(const RouteContext& ctx, std::string content_type, Render render) {
  if (ctx.render == nullptr) {
    return text(200, std::move(content_type),
                render(merged_views(ctx.daemon.views({.history = false}), ctx.store), ctx.now));
  }
  return merged_later(ctx, [now = ctx.now, content_type = std::move(content_type), render](
                               const std::vector<model::LoadBalancerView>& lbs, const ApiState*) {
    return text(200, content_type, render(lbs, now));
  });
}

// GET /metrics: the exposition streamed a piece at a time, each rendered on the render thread as
// the last one has gone out (the whole text is 330 MB at 10,000 load balancers of three members),
// the families the query asks for. The store's families are taken now, as the views are.
constexpr std::string_view kType = "text/plain; version=0.0.4; charset=utf-8";
Response metrics(const Call& c) {
  const RouteContext& ctx = c.ctx;
  auto query = parse_metrics_query(c.target.query, ctx.metrics);
  if (!query) return fault(400, query.error());
  std::string tail = ctx.shared != nullptr
                         ? store_metrics_text(ctx.shared->health(), ctx.now, *query)
                         : std::string();
  if (ctx.render == nullptr) {
    const auto lbs = merged_views(ctx.daemon.views({.history = false}), ctx.store);
    return text(200, std::string(kType), metrics_text(lbs, ctx.now, *query) + tail);
  }
  return merged_later(ctx, [now = ctx.now, query = std::move(*query), tail = std::move(tail)](
                               std::vector<model::LoadBalancerView> lbs, const ApiState*) {
    const auto views = std::make_shared<const std::vector<model::LoadBalancerView>>(std::move(lbs));
    const auto render = std::make_shared<MetricsRender>(*views, now, query, tail);
    Response r = text(200, std::string(kType), "");
    r.stream = [views, render] { return render->next(); };
    return r;
  });
}

// With admin.store type etcd, how the store is doing (store_health.h).
Response shown_with_store(const RouteContext& ctx, Response r, StoreShown how) {
  if (ctx.shared == nullptr) return r;
  return with_store(std::move(r), ctx.shared->health(), ctx.now, how);
}

// /healthz and /readyz. A load balancer in front of vigil, or keepalived, moves traffic away
// during a stop's grace; not serving answers both alike, without building the views.
Response health(const Call& c) {
  if (c.ctx.daemon.stopping())
    return text(503, "text/plain; charset=utf-8", "draining for a stop\n");
  const std::optional<std::string> problem = c.ctx.daemon.serving();
  if (c.target.segments[0] == "healthz" || problem) return healthz(problem);
  return readyz(
      merged_views(c.ctx.daemon.views({}), c.ctx.store),
      c.ctx.shared != nullptr ? c.ctx.shared->readiness_problem(c.ctx.now) : std::nullopt);
}

// An Octavia GET, from the views without the members' last hour (Octavia shows none of it). A
// whole list renders every object of its kind (at 10,000 load balancers, 0.3-0.8 s and megabytes
// of JSON): off the control thread when the server can, where its lookups use an index made from
// the state's copy.
Response octavia_read_of_views(const Call& c) {
  const RouteContext& ctx = c.ctx;
  const bool whole_list = c.target.segments.size() == 3;
  if (ctx.render == nullptr || !whole_list) {
    const auto lbs = merged_views(ctx.daemon.views({.history = false}), ctx.store);
    return route_octavia(c.target, Catalog(lbs, ctx.store, ctx.default_project));
  }
  return merged_later(
      ctx, [target = c.target, project = std::string(ctx.default_project)](
               const std::vector<model::LoadBalancerView>& lbs, const ApiState* state) {
        return route_octavia(target, Catalog(lbs, state, project, Catalog::Lookup::kIndexNow));
      });
}

// With admin.store type etcd, a read says how old the node's copy is (X-Vigil-Store-Age).
Response octavia_read(const Call& c) {
  return shown_with_store(c.ctx, octavia_read_of_views(c), StoreShown::kHeader);
}

// An Octavia write, and any other method there (its own 405). A write is decided on the config
// file's load balancers (their ports are taken, their objects read-only; without their members,
// which it cannot change) and, when its path names an API object by id, on that object's load
// balancer alone: a create names its relations in the body, which the operations find in the
// store (ops.h). So it costs what the file and that load balancer hold, not the ten thousand
// views of ten thousand load balancers. A path whose key is no API id (a name, an object of the
// file, or none known) is tried on every load balancer, as a read finds it: a file object's
// answer is a 409 or a runtime override. Nothing is written before an object is found.
Response octavia_write(const Call& c) {
  const RouteContext& ctx = c.ctx;
  if (ctx.shared != nullptr && !ctx.in_turn) return queued_write(c.request, ctx);
  const Segments& s = c.target.segments;
  if (auto r = route_quota_write(c.request, c.target, ctx)) return *r;
  if (s.size() >= 3 && is_octavia_collection(s[1], s[2])) {
    const auto lbs = merged_views(ctx.daemon.views({.file_members = false}), ctx.store);
    const Segments rest(s.begin() + 2, s.end());
    if (auto r = route_octavia_collection(c.request.method, s[1], rest, c.target, c.request.body,
                                          Catalog(lbs, ctx.store, ctx.default_project))) {
      return *r;
    }
  }
  if (s.size() >= 2 && s[1] == "octavia") return fault(404, "Not found: " + joined_path(s));
  const bool keyed = s.size() >= 4;
  const ApiLoadBalancer* holder =
      keyed && ctx.store != nullptr ? ctx.store->state().holder(s[3], s[2]) : nullptr;
  if (ctx.store != nullptr && (!keyed || holder != nullptr)) {
    // A write of one member is decided on that member alone (a create on none): its cost must
    // not grow with the pool. A member named otherwise than by its id needs them all to be found.
    std::optional<std::string_view> only_member;
    if (holder != nullptr && s[2] == "pools" && s.size() == 5) only_member = "";
    if (holder != nullptr && s[2] == "pools" && s.size() == 6 && s[4] == "members" &&
        ctx.store->state().holder(s[5], "members") == holder) {
      only_member = s[5];
    }
    std::vector<model::LoadBalancerView> daemon =
        ctx.daemon.views({.api = false, .file_members = false});
    if (holder != nullptr) {
      std::ranges::move(
          ctx.daemon.views({.file = false, .lb_id = holder->id, .member_id = only_member}),
          std::back_inserter(daemon));
    }
    const std::vector<model::LoadBalancerView> lbs =
        write_views(std::move(daemon), *ctx.store, holder, only_member);
    return route_octavia_write(c.request, c.target, Catalog(lbs, ctx.store, ctx.default_project),
                               ctx);
  }
  const std::vector<model::LoadBalancerView> lbs =
      merged_views(ctx.daemon.views({.file_members = false}), ctx.store);
  return route_octavia_write(c.request, c.target, Catalog(lbs, ctx.store, ctx.default_project),
                             ctx);
}

// What `openstack loadbalancer create --vip-subnet-id` looks up through Neutron.
Response neutron(const Call& c) {
  if (auto r = route_neutron(c.request.method, c.target)) return *r;
  return fault(404, "Not found: " + joined_path(c.target.segments));
}

Response page(const Call& c) {
  // Buttons need a form that can prove it is ours: only a signed-in session has a CSRF token.
  const PageUser user{
      .access = c.caller.access,
      .signed_in = c.caller.session != nullptr,
      .csrf = c.caller.session != nullptr ? c.caller.session->csrf : std::string_view{}};
  std::string html =
      status_page(merged_views(c.ctx.daemon.views({}), c.ctx.store), c.ctx.now, user);
  if (c.ctx.shared != nullptr) {
    if (const size_t at = html.find("<h1>"); at != std::string::npos) {
      html.insert(at, store_notice_html(c.ctx.shared->health(), c.ctx.now));
    }
  }
  Response r = text(200, "text/html; charset=utf-8", std::move(html));
  // The page has no scripts and no external assets; the policy keeps it that way.
  r.headers.emplace_back("Content-Security-Policy", std::string(kPageContentSecurityPolicy));
  r.headers.emplace_back("X-Frame-Options", "DENY");
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

Response reload(const Call& c) {
  auto reloaded = c.ctx.daemon.reload();
  if (!reloaded) return fault(409, reloaded.error().message);
  boost::json::array warnings(reloaded->begin(), reloaded->end());
  return text(200, "application/json",
              boost::json::serialize(
                  boost::json::object{{"reloaded", true}, {"warnings", std::move(warnings)}}));
}

Response upgrade(const Call& c) {
  auto pid = c.ctx.daemon.upgrade();
  if (!pid) return fault(409, pid.error().message);
  return text(200, "application/json",
              "{\"upgrading\": true, \"pid\": " + std::to_string(*pid) + "}");
}

// The status page's sign-in, sign-out and buttons: only where the server keeps login sessions
// (without them their paths are unknown, 404, like any other).
const Route kPageRoutes[] = {
    {"GET", "/login", Guard::kNone, [](const Call& c) { return login_form(c.request, c.ctx); }},
    {"POST", "/login", Guard::kForm, [](const Call& c) { return sign_in(c.request, c.ctx); }},
    {"*", "/login", Guard::kNone, [](const Call&) { return login_not_allowed(); }},
    {"POST", "/logout", Guard::kForm, [](const Call& c) { return logout(c.request, c.ctx); }},
    {"*", "/logout", Guard::kNone, [](const Call&) { return page_post_only(); }},
    {"POST", "/page/member", Guard::kForm,
     [](const Call& c) { return member_button(c.request, c.ctx); }},
    {"*", "/page/member", Guard::kNone, [](const Call&) { return page_post_only(); }},
    {"POST", "/page/sessions", Guard::kForm,
     [](const Call& c) { return sessions_button(c.request, c.ctx); }},
    {"*", "/page/sessions", Guard::kNone, [](const Call&) { return page_post_only(); }},
};

// Every other path. The first row whose path matches names the resource; a method none of its
// rows takes is a 405. docs/api.md lists the same.
const Route kRoutes[] = {
    // No token: keepalived's vrrp_script (vigil health) and systemd probe them; they reveal
    // listener names and member counts at most.
    {"GET", "/healthz|readyz", Guard::kNone, &health},
    {"GET", "/v2|v2.0", Guard::kRead,
     [](const Call&) { return text(200, "application/json", "\"v2\""); }},
    {"GET", "/v2|v2.0/lbaas/*", Guard::kRead, &octavia_read},
    {"POST", "/v2|v2.0/lbaas/*", Guard::kWrite, &octavia_write},
    {"PUT", "/v2|v2.0/lbaas/*", Guard::kWrite, &octavia_write},
    {"DELETE", "/v2|v2.0/lbaas/*", Guard::kWrite, &octavia_write},
    {"*", "/v2|v2.0/lbaas/*", Guard::kRead, &octavia_write},
    {"GET", "/v2|v2.0/octavia/*", Guard::kRead, &octavia_read},
    {"*", "/v2|v2.0/octavia/*", Guard::kRead, &octavia_write},
    {"*", "/v2|v2.0/*", Guard::kRead, &neutron},
    {"GET", "/", Guard::kPage, &page},
    {"GET", "/v1/status", Guard::kRead,
     [](const Call& c) {
       return shown_with_store(c.ctx, rendered(c.ctx, "application/json", &status_json),
                               StoreShown::kStatus);
     }},
    {"POST", "/v1/reload", Guard::kWrite, &reload},
    {"POST", "/v1/upgrade", Guard::kWrite, &upgrade},
    {"GET", "/v1/pools/{pool}/members/{member}/admin", Guard::kRead,
     [](const Call& c) { return member_admin(c.request, c.target, c.ctx); }},
    {"PUT", "/v1/pools/{pool}/members/{member}/admin", Guard::kWrite,
     [](const Call& c) { return member_admin(c.request, c.target, c.ctx); }},
    {"*", "/v1/pools/*", Guard::kRead,
     [](const Call&) {
       return fault(404, "Not found: use /v1/pools/{pool}/members/{member}/admin");
     }},
    {"GET", "/v1/sessions", Guard::kRead,
     [](const Call& c) { return list_sessions(c.target, c.ctx); }},
    {"POST", "/v1/sessions/kill", Guard::kWrite,
     [](const Call& c) { return kill_sessions(c.request, c.ctx); }},
    {"*", "/v1/sessions/*", Guard::kRead,
     [](const Call&) { return fault(404, "Not found: use /v1/sessions or /v1/sessions/kill"); }},
    {"GET", "/metrics", Guard::kRead, &metrics},
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

std::optional<Response> refused_cross_site(const Request& request) {
  auto why = cross_site_refusal(
      {.host = request.host, .origin = request.origin, .sec_fetch_site = request.sec_fetch_site});
  if (!why) return std::nullopt;
  log::warn("admin API: {} {} refused: {}", request.method, request.target, *why);
  return fault(403, *why);
}

// The refusal for a caller that `guard` (kRead, kWrite or kPage) does not let through, or none.
std::optional<Response> check_access(const Request& request, Guard guard, const Caller& caller,
                                     const RouteContext& ctx) {
  if (ctx.token.empty() && ctx.read_token.empty()) {
    return fault(401, "no admin token configured (admin.token_file)");
  }
  const Access needed = std::max(guard == Guard::kWrite ? Access::kWrite : Access::kRead,
                                 required_access(request.method));
  // A cookie is sent by the browser on its own: it may only read. The page's buttons post
  // to /page/member, which checks the form's CSRF token.
  if (caller.session != nullptr && needed == Access::kWrite) {
    return fault(401,
                 "Authentication required: the status page's sign-in only reads; changes take "
                 "the token in X-Auth-Token or Authorization: Bearer");
  }
  if (caller.access == Access::kNone) {
    // A browser opening the page is shown the sign-in form.
    if (!caller.presented_token && guard == Guard::kPage && ctx.logins != nullptr &&
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

const Route* row_for(std::span<const Route> rows, std::string_view method) {
  for (const Route& r : rows) {
    if (r.method == method || r.method == "*") return &r;
  }
  return nullptr;
}

// The guard of a request no row takes: a path's 405 is told to whoever may read it (the path's
// write rows do not hide it from the read token), an unknown path's 404 likewise.
Guard guard_without_row(std::span<const Route> rows) {
  if (rows.empty()) return Guard::kRead;
  const Guard g = rows.front().guard;
  return g == Guard::kWrite ? Guard::kRead : g;
}

// A client that asks for JSON and not for a page: `Accept: application/json`, not text/html.
bool wants_json(std::string_view accept) {
  return accept.find("application/json") != std::string_view::npos &&
         accept.find("text/html") == std::string_view::npos;
}

// Where the Octavia API's links point, as Octavia builds them (pecan's request.path_url, or its
// [api_settings] api_base_uri, which wins over any header): the configured public endpoint, else
// the scheme and Host the client used, as a trusted proxy forwards them. Without a Host
// (HTTP/1.0) links are paths.
std::string link_base(const Request& request, const RouteContext& ctx) {
  if (!ctx.public_endpoint.empty()) return std::string(ctx.public_endpoint);
  return client_base({.host = request.host,
                      .forwarded = request.forwarded,
                      .x_forwarded_proto = request.x_forwarded_proto,
                      .x_forwarded_host = request.x_forwarded_host,
                      .x_forwarded_prefix = request.x_forwarded_prefix},
                     ctx.trust_forwarded);
}

}  // namespace

Response route(const Request& request, const RouteContext& ctx) {
  auto parsed = parse_target(request.target);
  if (!parsed) return fault(400, parsed.error());
  Target& target = *parsed;
  target.link_base = link_base(request, ctx);
  target.page_max_limit = ctx.page_max_limit;
  // `/` is the status page for people and Octavia's version document for API clients
  // (keystoneauth's discovery asks it for JSON, without a token, as Octavia serves it).
  if (target.segments.empty() && request.method == "GET" && wants_json(request.accept)) {
    return octavia_versions(target);
  }
  std::span<const Route> rows;
  if (ctx.logins != nullptr) rows = rows_of(kPageRoutes, target.segments);
  if (rows.empty()) rows = rows_of(kRoutes, target.segments);
  const Route* row = row_for(rows, request.method);
  const Guard guard = row != nullptr ? row->guard : guard_without_row(rows);
  Caller caller;
  if (guard == Guard::kForm) {
    if (auto refused = refused_cross_site(request)) return *refused;
  } else if (guard != Guard::kNone) {
    caller = caller_of(request, ctx);
    if (auto denied = check_access(request, guard, caller, ctx)) return *denied;
  }
  if (row == nullptr) {
    return rows.empty() ? fault(404, "Not found: " + joined_path(target.segments))
                        : method_not_allowed(rows);
  }
  return row->handler(Call{.request = request, .target = target, .ctx = ctx, .caller = caller});
}

}  // namespace vigil::admin
