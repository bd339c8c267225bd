#include "admin/octavia/writes.h"

#include <fmt/format.h>

#include <charconv>
#include <set>
#include <variant>

#include "admin/octavia/local_network.h"
#include "admin/octavia/member_set.h"
#include "admin/octavia/object_store.h"
#include "admin/octavia/ops.h"
#include "admin/octavia/populated.h"
#include "admin/octavia/quotas.h"
#include "admin/octavia/random_id.h"
#include "admin/octavia/shared_store.h"
#include "admin/octavia/views.h"
#include "admin/text.h"
#include "base/ascii.h"
#include "base/log.h"

namespace vigil::admin {
namespace {

using model::LoadBalancerView;
using Segments = std::vector<std::string>;

// What a write does: which kind of object, created or changed, and the id it acts on.
struct Plan {
  std::string kind;     // "loadbalancers", "listeners", "pools", "members", "healthmonitors"
  std::string id;       // the object (PUT, DELETE) or, for a member create, its pool
  std::string pool_id;  // members: their pool
};

Response not_allowed(std::string_view why) {
  Response r = fault(405, fmt::format("Method not allowed: {}", why));
  r.headers.emplace_back("Allow", "GET");
  return r;
}

std::string singular(std::string_view kind) {
  if (kind == "loadbalancers") return "Load Balancer";
  if (kind == "listeners") return "Listener";
  if (kind == "pools") return "Pool";
  if (kind == "members") return "Member";
  return "Health Monitor";
}

// Finds the object a PUT or DELETE names (id or name); its load balancer, or a response.
std::variant<Response, std::pair<const LoadBalancerView*, std::string>> resolve(
    const Catalog& c, std::string_view kind, std::string_view key, std::string_view pool_key) {
  const LoadBalancerView* lb = nullptr;
  std::string id;
  if (kind == "loadbalancers") {
    if (auto h = c.loadbalancer(key)) lb = h.lb, id = h.item->id;
  } else if (kind == "listeners") {
    if (auto h = c.listener(key)) lb = h.lb, id = h.item->id;
  } else if (kind == "pools") {
    if (auto h = c.pool(key)) lb = h.lb, id = h.item->id;
  } else if (kind == "healthmonitors") {
    if (auto h = c.monitored_pool(key)) lb = h.lb, id = h.item->health_monitor_id;
  } else if (auto pool = c.pool(pool_key)) {
    if (auto h = c.member(*pool.item, key)) lb = pool.lb, id = h.item->id;
  } else {
    return fault(404, fmt::format("Pool {} not found.", pool_key));
  }
  if (lb == nullptr) return fault(404, fmt::format("{} {} not found.", singular(kind), key));
  return std::pair{lb, id};
}

// The config file's listeners hold their ports: API listeners cannot take them.
std::vector<TakenPort> file_ports(const Catalog& c) {
  std::vector<TakenPort> out;
  for (const LoadBalancerView& lb : c.lbs()) {
    if (c.from_api(lb)) continue;
    for (const model::ListenerView& l : lb.listeners) {
      int port = l.config.port;
      if (port == 0 && l.bound.rfind(':') != std::string::npos) {  // port 0: the kernel's pick
        const std::string_view p = std::string_view(l.bound).substr(l.bound.rfind(':') + 1);
        std::from_chars(p.data(), p.data() + p.size(), port);
      }
      out.push_back({.address = l.config.bind_address,
                     .port = port,
                     .owner = fmt::format("listener {} of {}", l.config.name,
                                          lb.source_file.empty() ? lb.name : lb.source_file)});
    }
  }
  return out;
}

OpContext op_context(const Catalog& c, const Request& request, const RouteContext& ctx) {
  return OpContext{
      .now = octavia_time_precise(ctx.now),
      // As Octavia behind keystonemiddleware: the token's project, else vigil's default.
      .project_id =
          std::string(request.x_project_id.empty() ? ctx.default_project : request.x_project_id),
      .new_id = random_uuid,
      .is_local_address = is_local_address,
      .taken = file_ports(c),
      .read_only = [&c](std::string_view id) -> std::optional<ApiError> {
        const LoadBalancerView* lb = c.owner_of(id);
        if (lb == nullptr || c.from_api(*lb)) return std::nullopt;
        return ApiError{409,
                        fmt::format("objects from {} are read-only through the API: "
                                    "edit the file and reload",
                                    lb->source_file.empty() ? "the config file" : lb->source_file)};
      },
  };
}

ApiResult<std::string> run(ApiState& next, const Request& request, const Target& target,
                           const Plan& plan, const OpContext& oc) {
  const std::string_view m = request.method;
  const std::string_view body = request.body;
  const std::string& k = plan.kind;
  auto done = [&](ApiResult<void> r) -> ApiResult<std::string> {
    if (!r) return std::unexpected(r.error());
    return plan.id;
  };
  if (m == "POST") {
    if (k == "loadbalancers") return create_loadbalancer_tree(next, body, oc);
    if (k == "listeners") return create_listener(next, body, oc);
    if (k == "pools") return create_pool(next, body, oc);
    if (k == "members") return create_member(next, plan.pool_id, body, oc);
    return create_healthmonitor(next, body, oc);
  }
  if (m == "PUT") {
    if (k == "loadbalancers") return done(update_loadbalancer(next, plan.id, body, oc));
    if (k == "listeners") return done(update_listener(next, plan.id, body, oc));
    if (k == "pools") return done(update_pool(next, plan.id, body, oc));
    if (k == "members") return done(update_member(next, plan.id, body, oc));
    return done(update_healthmonitor(next, plan.id, body, oc));
  }
  if (k == "loadbalancers") {
    return done(
        delete_loadbalancer(next, plan.id, bool_from_string(target.param("cascade").value_or(""))));
  }
  if (k == "listeners") return done(delete_listener(next, plan.id));
  if (k == "pools") return done(delete_pool(next, plan.id));
  if (k == "members") return done(delete_member(next, plan.id));
  return done(delete_healthmonitor(next, plan.id));
}

// The object as a GET shows it now, with the write's status code.
Response reply(const RouteContext& ctx, const Target& target, const Plan& plan,
               const std::string& id, int status) {
  // The object's own load balancer is all its answer shows; a write changes API objects only. A
  // member's answer shows that member: its cost must not grow with the pool.
  const ApiLoadBalancer* holder = ctx.store->state().holder(id, plan.kind);
  std::optional<std::string_view> only_member;
  if (plan.kind == "members") only_member = id;
  const std::vector<LoadBalancerView> views =
      holder != nullptr
          ? api_lb_views(
                ctx.daemon.views({.file = false, .lb_id = holder->id, .member_id = only_member}),
                *ctx.store, holder->id, only_member)
          : merged_views(ctx.daemon.views({.file = false}), ctx.store);
  const Catalog after(views, ctx.store, ctx.default_project);
  Target show;
  show.segments = {target.segments[0], "lbaas"};
  if (plan.kind == "members") {
    show.segments.insert(show.segments.end(), {"pools", plan.pool_id, "members", id});
  } else {
    show.segments.insert(show.segments.end(), {plan.kind, id});
  }
  Response r = route_octavia(show, after);
  if (r.status == 200) r.status = status;
  return r;
}

// The end of a write whose store is etcd (shared_store.h): answered once etcd has committed it;
// when it does not, the daemon's change is undone and the answer says why (409, 503).
Response committed_later(const Request& request, const Target& target, const Plan& plan,
                         const std::string& id, ApiState next, const RouteContext& ctx) {
  Response r;
  r.later = [ctx, target, plan, id, next = std::move(next), method = std::string(request.method),
             path = std::string(request.target)](std::function<void(Response)> send) {
    ctx.shared->commit(next, [ctx, target, plan, id, next, method, path,
                              send = std::move(send)](std::optional<ApiError> error) {
      if (error) {
        log::warn("admin API: {} {} not made: {}", method, path, error->message);
        if (auto undone = ctx.daemon.apply(ObjectStore::change_between(next, ctx.store->state()));
            !undone) {
          log::error("admin API: undoing failed too: {}", undone.error().message);
        }
        return send(fault(error->status, error->message));
      }
      log::info("admin API: {} {} done ({} {}), committed to the store", method, path, plan.kind,
                id);
      if (method == "DELETE") {
        Response gone;
        gone.status = 204;
        return send(std::move(gone));
      }
      send(reply(ctx, target, plan, id, method == "POST" ? 201 : 200));
    });
  };
  return r;
}

}  // namespace

bool bool_from_string(std::string_view text) {
  const std::string lower = lowercase(text);
  return lower == "1" || lower == "t" || lower == "true" || lower == "on" || lower == "y" ||
         lower == "yes";
}

Response route_octavia_write(const Request& request, const Target& target, const Catalog& catalog,
                             const RouteContext& ctx) {
  const Segments s(target.segments.begin() + 2, target.segments.end());
  const std::string_view method = request.method;
  static const std::set<std::string, std::less<>> kKinds = {"loadbalancers", "listeners", "pools",
                                                            "healthmonitors"};
  if (s.empty() || !kKinds.contains(s[0])) return route_octavia(target, catalog);  // its 404
  if (method != "POST" && method != "PUT" && method != "DELETE") {
    return not_allowed("the Octavia API answers GET, POST, PUT and DELETE");
  }
  const bool member_path = s[0] == "pools" && s.size() >= 3 && s[2] == "members";
  Plan plan{.kind = member_path ? "members" : s[0]};
  const bool create = member_path ? s.size() == 3 : s.size() == 1;
  const bool object = member_path ? s.size() == 4 : s.size() == 2;
  // The config file's objects answer 409 whatever the method: the message says what to do. A
  // member's weight and admin_state_up are the exception: they become a runtime override.
  if (member_path) {
    auto pool = catalog.pool(s[1]);
    if (!pool) return fault(404, fmt::format("Pool {} not found.", s[1]));
    if (!catalog.from_api(*pool.lb) && method == "PUT" && object) {
      // The write's catalog may lack the file's members (RouteContext::write_views).
      const std::vector<LoadBalancerView> all = merged_views(ctx.daemon.views({}), ctx.store);
      const Catalog full(all, ctx.store);
      return set_file_member(request, target, full, ctx, full.pool(s[1]), s[3]);
    }
    if (!catalog.from_api(*pool.lb)) return catalog.read_only(*pool.lb);
    plan.pool_id = pool.item->id;
  }
  if (object) {
    auto found = resolve(catalog, plan.kind, s.back(), s[1]);
    if (auto* r = std::get_if<Response>(&found)) return *r;
    auto [lb, id] = std::get<1>(found);
    if (!catalog.from_api(*lb)) return catalog.read_only(*lb);
    plan.id = id;
  }
  if (create != (method == "POST") || (!create && !object)) {
    return not_allowed(create ? "POST creates; PUT and DELETE take an object's id"
                              : "POST to the collection creates; PUT and DELETE change an object");
  }
  if (ctx.store == nullptr) {
    return not_allowed(
        "this vigil runs without an object store; objects come from its config "
        "file only");
  }
  ApiState next = ctx.store->state();
  auto id = run(next, request, target, plan, op_context(catalog, request, ctx));
  if (!id) return fault(id.error().status, id.error().message);
  if (auto met = quota_met(ctx.store->state(), next)) return fault(met->status, met->message);
  if (auto applied = ctx.daemon.apply(ObjectStore::change_between(ctx.store->state(), next));
      !applied) {
    log::warn("admin API: {} {} refused: {}", method, request.target, applied.error().message);
    return fault(409, applied.error().message);
  }
  if (ctx.shared != nullptr)
    return committed_later(request, target, plan, *id, std::move(next), ctx);
  // A copy of the state shares its load balancers: committing one keeps `next` for the undoing.
  if (auto saved = ctx.store->commit(next); !saved) {
    log::error("admin API: {}; undoing the change", saved.error().message);
    if (auto undone = ctx.daemon.apply(ObjectStore::change_between(next, ctx.store->state()));
        !undone) {
      log::error("admin API: undoing failed too: {}", undone.error().message);
    }
    return fault(500, saved.error().message);
  }
  log::info("admin API: {} {} done ({} {})", method, request.target, plan.kind, *id);
  if (method == "DELETE") {
    Response r;
    r.status = 204;
    return r;
  }
  return reply(ctx, target, plan, *id, method == "POST" ? 201 : 200);
}

}  // namespace vigil::admin
