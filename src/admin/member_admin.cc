#include "admin/member_admin.h"

#include <fmt/format.h>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "admin/octavia/views.h"
#include "admin/override_json.h"
#include "admin/pool_key.h"
#include "admin/status_json.h"
#include "base/log.h"

namespace vigil::admin {
namespace {

using model::LoadBalancerView;
using model::PoolView;

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::variant<FoundMember, Response> find_pool(const std::vector<LoadBalancerView>& lbs,
                                              std::string_view key) {
  const PoolKey k = PoolKey::parse(key);
  std::vector<FoundMember> hits;
  std::vector<std::string> where;
  for (const LoadBalancerView& lb : lbs) {
    if (!k.names_lb(lb.name, lb.id)) continue;
    for (const PoolView& p : lb.pools) {
      if (p.id == k.pool) return FoundMember{.lb = &lb, .pool = &p};
      if (p.config.name != k.pool) continue;
      hits.push_back({.lb = &lb, .pool = &p});
      where.push_back(fmt::format("{}/{} (id {})", lb.name, p.config.name, p.id));
    }
  }
  if (hits.empty()) return fault(404, fmt::format("Pool {} not found.", key));
  if (hits.size() > 1) {
    return fault(409, fmt::format("pool name {} is in more than one load balancer: {}; give the "
                                  "pool's id or LB/POOL",
                                  key, joined(where)));
  }
  return hits.front();
}

Response member_answer(const FoundMember& f, model::WallTime now) {
  boost::json::object o = member_json(*f.member, now);
  o["pool"] = f.pool->config.name;
  o["load_balancer"] = f.lb->name;
  Response r;
  r.body = boost::json::serialize(boost::json::object{{"member", std::move(o)}});
  return r;
}

std::optional<Response> change(const FoundMember& f, std::optional<model::AdminState> state,
                               std::optional<int> weight, const std::string& by,
                               const RouteContext& ctx) {
  auto next = model::next_override(f.member->admin_override, state, weight, ctx.now, by);
  if (auto done = ctx.daemon.set_override(f.member->id, next, by); !done) {
    log::error("admin API: member {} of pool {}: {}", f.member->config.name, f.pool->config.name,
               done.error().message);
    return fault(500, done.error().message);
  }
  return std::nullopt;
}

std::optional<Response> put(const Request& request, const FoundMember& f, const RouteContext& ctx) {
  auto req = parse_override_request(request.body);
  if (!req) return fault(400, req.error().message);
  return change(f, req->state, req->weight, credited_by(req->by, request.peer_user), ctx);
}

}  // namespace

std::variant<FoundMember, Response> find_member(const std::vector<LoadBalancerView>& lbs,
                                                std::string_view pool_key,
                                                std::string_view member_key) {
  auto pool = find_pool(lbs, pool_key);
  if (auto* r = std::get_if<Response>(&pool)) return *r;
  FoundMember f = std::get<FoundMember>(pool);
  std::vector<std::string> ids;
  for (const model::MemberView& m : f.pool->members) {
    if (m.id == member_key) {
      f.member = &m;
      return f;
    }
    if (m.config.name == member_key) {
      if (f.member == nullptr) f.member = &m;
      ids.push_back(m.id);
    }
  }
  if (f.member == nullptr) {
    return fault(404, fmt::format("Member {} not found in pool {}.", member_key, pool_key));
  }
  if (ids.size() > 1) {
    return fault(409, fmt::format("more than one member of pool {} is named {}: give its id ({})",
                                  pool_key, member_key, joined(ids)));
  }
  return f;
}

std::optional<Response> set_member_state(const FoundMember& f, model::AdminState state,
                                         std::string_view by, const RouteContext& ctx) {
  return change(f, state, std::nullopt, std::string(by), ctx);
}

Response member_admin(const Request& request, const Target& target, const RouteContext& ctx) {
  const auto& s = target.segments;
  const bool get = request.method == "GET";
  // Only the pools the key can name: the answer costs the same at ten thousand load balancers.
  const auto views = [&] {
    return merged_views(ctx.daemon.views({.pool_key = s[2]}), ctx.store, s[2]);
  };
  std::vector<LoadBalancerView> lbs = views();  // found points in
  auto found = find_member(lbs, s[2], s[4]);
  if (auto* r = std::get_if<Response>(&found)) return *r;
  if (!get) {
    if (auto refused = put(request, std::get<FoundMember>(found), ctx)) return *refused;
    log::info("admin API: PUT {} done", request.target);
    lbs = views();
    found = find_member(lbs, s[2], s[4]);
    if (auto* r = std::get_if<Response>(&found)) return *r;
  }
  return member_answer(std::get<FoundMember>(found), ctx.now);
}

}  // namespace vigil::admin
