#include "admin/octavia_routes.h"

#include <fmt/format.h>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "admin/octavia_json.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

Response ok(std::string_view key, json::value body) {
  Response r;
  r.body = json::serialize(json::object{{key, std::move(body)}});
  return r;
}

Response ok(json::object body) {
  Response r;
  r.body = json::serialize(body);
  return r;
}

std::string file_of(const model::LoadBalancerView& lb) {
  return lb.source_file.empty() ? std::string("the config file") : lb.source_file;
}

// A write to an object that exists: it came from the config file.
Response read_only(const model::LoadBalancerView& lb) {
  return fault(409, fmt::format("objects from {} are read-only through the API: edit the file "
                                "and reload", file_of(lb)));
}

// A write that would create an object: not supported until API-created objects exist.
Response cannot_create(const model::LoadBalancerView& lb) {
  Response r = fault(405, fmt::format("Method not allowed: objects from {} are read-only; edit "
                                      "the file and reload", file_of(lb)));
  r.headers.emplace_back("Allow", "GET");
  return r;
}

Response not_found(std::string_view kind, std::string_view id) {
  return fault(404, fmt::format("{} {} not found.", kind, id));
}

bool selected(const Target& t, const std::string& id, const std::string& name) {
  if (auto want = t.param("id"); want && *want != id) return false;
  if (auto want = t.param("name"); want && *want != name) return false;
  return true;
}

// Octavia takes ids; names are accepted too, for curl users.
template <typename T, typename Name>
const T* find(const std::vector<T>& items, std::string_view key, Name name) {
  for (const T& item : items) {
    if (item.id == key) return &item;
  }
  for (const T& item : items) {
    if (name(item) == key) return &item;
  }
  return nullptr;
}

const model::ListenerView* find_listener(const model::LoadBalancerView& lb, std::string_view key) {
  return find(lb.listeners, key, [](const model::ListenerView& l) { return l.config.name; });
}

const model::PoolView* find_pool(const model::LoadBalancerView& lb, std::string_view key) {
  return find(lb.pools, key, [](const model::PoolView& p) { return p.config.name; });
}

const model::PoolView* find_monitored_pool(const model::LoadBalancerView& lb, std::string_view key) {
  for (const model::PoolView& p : lb.pools) {
    if (p.config.health_monitor && (p.health_monitor_id == key || p.config.name == key)) return &p;
  }
  return nullptr;
}

struct Call {
  bool get;
  const std::vector<std::string>& s;  // the segments after "lbaas"
  const Target& target;
  const model::LoadBalancerView& lb;
};

Response loadbalancers(const Call& c) {
  const model::LoadBalancerView& lb = c.lb;
  if (c.s.size() == 1) {
    if (!c.get) return cannot_create(lb);
    json::array items;
    if (selected(c.target, lb.id, lb.name)) items.push_back(octavia::loadbalancer(lb));
    return ok("loadbalancers", std::move(items));
  }
  if (c.s[1] != lb.id && c.s[1] != lb.name) return not_found("Load Balancer", c.s[1]);
  if (!c.get) return read_only(lb);
  if (c.s.size() == 2) return ok("loadbalancer", octavia::loadbalancer(lb));
  if (c.s.size() == 3 && (c.s[2] == "status" || c.s[2] == "statuses")) {
    return ok(octavia::status_tree(lb));
  }
  if (c.s.size() == 3 && c.s[2] == "stats") {
    uint64_t active = 0, total = 0;
    for (const model::ListenerView& l : lb.listeners) {
      active += l.active_connections;
      total += l.total_connections;
    }
    return ok(octavia::stats(active, total));
  }
  return fault(404, "Not found: unknown load balancer sub-resource " + c.s[2]);
}

Response listeners(const Call& c) {
  if (c.s.size() == 1) {
    if (!c.get) return cannot_create(c.lb);
    json::array items;
    for (const model::ListenerView& l : c.lb.listeners) {
      if (selected(c.target, l.id, l.config.name)) items.push_back(octavia::listener(c.lb, l));
    }
    return ok("listeners", std::move(items));
  }
  const model::ListenerView* l = find_listener(c.lb, c.s[1]);
  if (l == nullptr) return not_found("Listener", c.s[1]);
  if (!c.get) return read_only(c.lb);
  if (c.s.size() == 2) return ok("listener", octavia::listener(c.lb, *l));
  if (c.s.size() == 3 && c.s[2] == "stats") {
    return ok(octavia::stats(l->active_connections, l->total_connections));
  }
  return fault(404, "Not found: unknown listener sub-resource " + c.s[2]);
}

Response members(const Call& c, const model::PoolView& p) {
  if (c.s.size() == 3) {
    if (!c.get) return read_only(c.lb);  // adding a member changes a pool of the file
    json::array items;
    for (const model::MemberView& m : p.members) {
      if (selected(c.target, m.id, m.config.name)) items.push_back(octavia::member(c.lb, m));
    }
    return ok("members", std::move(items));
  }
  const model::MemberView* m =
      find(p.members, c.s[3], [](const model::MemberView& v) { return v.config.name; });
  if (m == nullptr) return not_found("Member", c.s[3]);
  if (!c.get) return read_only(c.lb);
  if (c.s.size() == 4) return ok("member", octavia::member(c.lb, *m));
  return fault(404, "Not found: unknown member sub-resource " + c.s[4]);
}

Response pools(const Call& c) {
  if (c.s.size() == 1) {
    if (!c.get) return cannot_create(c.lb);
    json::array items;
    for (const model::PoolView& p : c.lb.pools) {
      if (selected(c.target, p.id, p.config.name)) items.push_back(octavia::pool(c.lb, p));
    }
    return ok("pools", std::move(items));
  }
  const model::PoolView* p = find_pool(c.lb, c.s[1]);
  if (p == nullptr) return not_found("Pool", c.s[1]);
  if (c.s.size() >= 3 && c.s[2] == "members") return members(c, *p);
  if (!c.get) return read_only(c.lb);
  if (c.s.size() == 2) return ok("pool", octavia::pool(c.lb, *p));
  return fault(404, "Not found: unknown pool sub-resource " + c.s[2]);
}

Response healthmonitors(const Call& c) {
  if (c.s.size() == 1) {
    if (!c.get) return cannot_create(c.lb);
    json::array items;
    for (const model::PoolView& p : c.lb.pools) {
      if (p.config.health_monitor && selected(c.target, p.health_monitor_id, p.config.name)) {
        items.push_back(octavia::health_monitor(c.lb, p));
      }
    }
    return ok("healthmonitors", std::move(items));
  }
  const model::PoolView* p = find_monitored_pool(c.lb, c.s[1]);
  if (p == nullptr) return not_found("Health Monitor", c.s[1]);
  if (!c.get) return read_only(c.lb);
  if (c.s.size() == 2) return ok("healthmonitor", octavia::health_monitor(c.lb, *p));
  return fault(404, "Not found: unknown health monitor sub-resource " + c.s[2]);
}

}  // namespace

Response route_octavia(std::string_view method, const Target& target,
                       const model::LoadBalancerView& lb) {
  const std::vector<std::string> s(target.segments.begin() + 2, target.segments.end());
  const Call call{.get = method == "GET", .s = s, .target = target, .lb = lb};
  if (s.empty()) return fault(404, "Not found: /" + target.segments[0] + "/lbaas");
  if (s[0] == "loadbalancers") return loadbalancers(call);
  if (s[0] == "listeners") return listeners(call);
  if (s[0] == "pools") return pools(call);
  if (s[0] == "healthmonitors") return healthmonitors(call);
  return fault(404, fmt::format("Not found: /{}/lbaas/{} is not a resource vigil serves",
                                target.segments[0], s[0]));
}

}  // namespace vigil::admin
