#include "admin/octavia/reads.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "admin/octavia/collections.h"
#include "admin/octavia/json.h"
#include "admin/octavia/json_filter.h"
#include "admin/octavia/json_page.h"
#include "admin/octavia/names.h"
#include "admin/octavia/stored.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;
using model::LoadBalancerView;

Response ok(std::string_view key, json::value body) {
  Response r;
  r.body = json::serialize(json::object{{key, std::move(body)}});
  return r;
}

Response ok(const json::value& body) {
  Response r;
  r.body = json::serialize(body);
  return r;
}

Response not_found(std::string_view kind, std::string_view id) {
  return fault(404, fmt::format("{} {} not found.", kind, id));
}

// Octavia takes ids; names are accepted too, for curl users: ids first, then names.
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

// The API's monitors in the status tree carry their own names and admin state.
void name_tree_monitors(json::object& tree, const ApiState& state) {
  auto fix = [&](json::value& pool) {
    json::object& p = pool.as_object();
    const ApiPool* found = state.pool(p.at("id").as_string());
    if (found == nullptr || !found->healthmonitor) return;
    const ApiHealthMonitor& hm = *found->healthmonitor;
    if (json::object* m =
            p.if_contains("health_monitor") ? p.at("health_monitor").if_object() : nullptr) {
      (*m)["name"] = hm.name;
      (*m)["operating_status"] = octavia_name(hm.admin_state_up ? model::OperatingStatus::kOnline
                                                                : model::OperatingStatus::kOffline);
    }
  };
  json::object& lb = tree.at("statuses").as_object().at("loadbalancer").as_object();
  for (json::value& l : lb.at("listeners").as_array()) {
    for (json::value& p : l.as_object().at("pools").as_array()) fix(p);
  }
}

struct Call {
  const std::vector<std::string>& s;  // the segments after "lbaas"
  const Target& target;
  const Catalog& catalog;
};

// Octavia's lists: filtered (json_filter.h), sorted and paged (json_page.h). `hidden`: a field
// rendered only to be filtered on, left out of the answer (a member's pool_id). `render` adds
// the objects; one added with `listed` false is only a marker, never in the answer.
template <typename Render>
Response list(const Call& c, std::string_view key, Render render, std::string_view hidden = {}) {
  auto filters = parse_filters(key, c.target);
  if (!filters) return fault(400, filters.error());
  std::vector<json::object> objects;
  std::vector<bool> matches;
  render([&](json::object o, bool listed = true) {
    matches.push_back(listed && filters->matches(o));
    if (!hidden.empty()) o.erase(hidden);
    objects.push_back(std::move(o));
  });
  auto body = page(key, std::move(objects), matches, c.target);
  if (!body) return page_fault(body.error());
  Response r;
  r.body = json::serialize(*body);
  return r;
}

// One object, with the fields `?fields=` asks for, as Octavia's GET of one object.
Response one(const Call& c, std::string_view key, json::object o) {
  const std::vector<std::string> fields = requested_fields(c.target);
  if (!fields.empty()) o = only_fields(o, fields);
  return ok(key, std::move(o));
}

Response loadbalancers(const Call& c) {
  if (c.s.size() == 1) {
    return list(c, "loadbalancers", [&](auto add) {
      for (const LoadBalancerView& lb : c.catalog.lbs()) add(c.catalog.render(lb));
    });
  }
  auto hit = c.catalog.loadbalancer(c.s[1]);
  if (!hit) return not_found("Load Balancer", c.s[1]);
  const LoadBalancerView& lb = *hit.item;
  if (c.s.size() == 2) return one(c, "loadbalancer", c.catalog.render(lb));
  if (c.s.size() == 3 && (c.s[2] == "status" || c.s[2] == "statuses")) {
    return ok(c.catalog.status_tree(lb));
  }
  if (c.s.size() == 3 && c.s[2] == "stats") {
    return ok(octavia::stats(lb.listeners));
  }
  return fault(404, "Not found: unknown load balancer sub-resource " + c.s[2]);
}

Response listeners(const Call& c) {
  if (c.s.size() == 1) {
    return list(c, "listeners", [&](auto add) {
      for (const LoadBalancerView& lb : c.catalog.lbs()) {
        for (const model::ListenerView& l : lb.listeners) add(c.catalog.render(lb, l));
      }
    });
  }
  auto hit = c.catalog.listener(c.s[1]);
  if (!hit) return not_found("Listener", c.s[1]);
  if (c.s.size() == 2) return one(c, "listener", c.catalog.render(*hit.lb, *hit.item));
  if (c.s.size() == 3 && c.s[2] == "stats") {
    return ok(octavia::stats({hit.item, 1}));
  }
  return fault(404, "Not found: unknown listener sub-resource " + c.s[2]);
}

Response members(const Call& c, const LoadBalancerView& lb, const model::PoolView& p) {
  if (c.s.size() == 3) {
    return list(
        c, "members",
        [&](auto add) {
          for (const model::MemberView& m : p.members) {
            json::object o = c.catalog.render(lb, m);
            o["pool_id"] = p.id;
            add(std::move(o));
          }
          // Octavia looks a marker up among every member, so one of another pool says where
          // this pool's page starts, by its sort keys.
          const auto marker = c.target.param("marker");
          const auto in_pool = [&](const model::MemberView& m) { return m.id == marker; };
          if (!marker || std::ranges::any_of(p.members, in_pool)) return;
          for (const LoadBalancerView& other_lb : c.catalog.lbs()) {
            for (const model::PoolView& other : other_lb.pools) {
              for (const model::MemberView& m : other.members) {
                if (m.id == *marker) return add(c.catalog.render(other_lb, m), false);
              }
            }
          }
        },
        "pool_id");
  }
  auto hit = c.catalog.member(p, c.s[3]);
  if (!hit) return not_found("Member", c.s[3]);
  if (c.s.size() == 4) return one(c, "member", c.catalog.render(lb, *hit.item));
  return fault(404, "Not found: unknown member sub-resource " + c.s[4]);
}

Response pools(const Call& c) {
  if (c.s.size() == 1) {
    return list(c, "pools", [&](auto add) {
      for (const LoadBalancerView& lb : c.catalog.lbs()) {
        for (const model::PoolView& p : lb.pools) add(c.catalog.render(lb, p));
      }
    });
  }
  auto hit = c.catalog.pool(c.s[1]);
  if (!hit) return not_found("Pool", c.s[1]);
  if (c.s.size() >= 3 && c.s[2] == "members") return members(c, *hit.lb, *hit.item);
  if (c.s.size() == 2) return one(c, "pool", c.catalog.render(*hit.lb, *hit.item));
  return fault(404, "Not found: unknown pool sub-resource " + c.s[2]);
}

Response healthmonitors(const Call& c) {
  if (c.s.size() == 1) {
    return list(c, "healthmonitors", [&](auto add) {
      for (const LoadBalancerView& lb : c.catalog.lbs()) {
        for (const model::PoolView& p : lb.pools) {
          if (p.config.health_monitor) add(c.catalog.render_monitor(lb, p));
        }
      }
    });
  }
  auto hit = c.catalog.monitored_pool(c.s[1]);
  if (!hit) return not_found("Health Monitor", c.s[1]);
  if (c.s.size() == 2) return one(c, "healthmonitor", c.catalog.render_monitor(*hit.lb, *hit.item));
  return fault(404, "Not found: unknown health monitor sub-resource " + c.s[2]);
}

}  // namespace

Catalog::Catalog(const std::vector<LoadBalancerView>& lbs, const ApiState* state,
                 std::string_view file_project, Lookup lookup)
    : lbs_(lbs), state_(state), file_project_(file_project) {
  if (lookup == Lookup::kIndexNow && state_ != nullptr) {
    index_ = std::make_shared<const ApiIndex>(*state_);
  }
}

void Catalog::file_project(json::object& o) const {
  o["project_id"] = file_project_;
  o["tenant_id"] = file_project_;
}

Catalog::Hit<LoadBalancerView> Catalog::loadbalancer(std::string_view key) const {
  const LoadBalancerView* lb = find(lbs_, key, [](const LoadBalancerView& v) { return v.name; });
  return {lb, lb};
}

Catalog::Hit<model::ListenerView> Catalog::listener(std::string_view key) const {
  for (const LoadBalancerView& lb : lbs_) {
    for (const model::ListenerView& l : lb.listeners) {
      if (l.id == key) return {&lb, &l};
    }
  }
  for (const LoadBalancerView& lb : lbs_) {
    for (const model::ListenerView& l : lb.listeners) {
      if (l.config.name == key) return {&lb, &l};
    }
  }
  return {};
}

Catalog::Hit<model::PoolView> Catalog::pool(std::string_view key) const {
  for (const LoadBalancerView& lb : lbs_) {
    for (const model::PoolView& p : lb.pools) {
      if (p.id == key) return {&lb, &p};
    }
  }
  for (const LoadBalancerView& lb : lbs_) {
    for (const model::PoolView& p : lb.pools) {
      if (p.config.name == key) return {&lb, &p};
    }
  }
  return {};
}

Catalog::Hit<model::MemberView> Catalog::member(const model::PoolView& pool,
                                                std::string_view key) const {
  const model::MemberView* m =
      find(pool.members, key, [](const model::MemberView& v) { return v.config.name; });
  return {owner_of(pool.id), m};
}

Catalog::Hit<model::PoolView> Catalog::monitored_pool(std::string_view key) const {
  for (const LoadBalancerView& lb : lbs_) {
    for (const model::PoolView& p : lb.pools) {
      if (p.config.health_monitor && p.health_monitor_id == key) return {&lb, &p};
    }
  }
  if (const ApiState* s = state()) {
    for (const ApiLoadBalancer& alb : s->loadbalancers) {
      for (const ApiPool& ap : alb.pools) {
        if (ap.healthmonitor && ap.healthmonitor->name == key && !key.empty()) {
          return monitored_pool(ap.healthmonitor->id);
        }
      }
    }
  }
  for (const LoadBalancerView& lb : lbs_) {
    if (from_api(lb)) continue;  // a file's monitor is named after its pool
    for (const model::PoolView& p : lb.pools) {
      if (p.config.health_monitor && p.config.name == key) return {&lb, &p};
    }
  }
  return {};
}

const LoadBalancerView* Catalog::owner_of(std::string_view id) const {
  for (const LoadBalancerView& lb : lbs_) {
    if (lb.id == id) return &lb;
    for (const model::ListenerView& l : lb.listeners) {
      if (l.id == id) return &lb;
    }
    for (const model::PoolView& p : lb.pools) {
      if (p.id == id || (!p.health_monitor_id.empty() && p.health_monitor_id == id)) return &lb;
      for (const model::MemberView& m : p.members) {
        if (m.id == id) return &lb;
      }
    }
  }
  return nullptr;
}

template <typename T>
const T* Catalog::stored(std::string_view id, const T* (ApiIndex::*indexed)(std::string_view) const,
                         const T* (ApiState::*walked)(std::string_view) const) const {
  if (state() == nullptr) return nullptr;
  constexpr int kWalks = 8;  // a single object's GET or write never makes the index
  if (index_ == nullptr && ++lookups_ > kWalks) index_ = std::make_shared<const ApiIndex>(*state());
  return index_ ? (*index_.*indexed)(id) : (*state().*walked)(id);
}

bool Catalog::from_api(const LoadBalancerView& lb) const {
  return stored(lb.id, &ApiIndex::lb, &ApiState::lb) != nullptr;
}

Response Catalog::read_only(const LoadBalancerView& lb) const {
  const std::string file = lb.source_file.empty() ? std::string("the config file") : lb.source_file;
  return fault(409, fmt::format("objects from {} are read-only through the API: edit the file "
                                "and reload",
                                file));
}

json::object Catalog::render(const LoadBalancerView& lb) const {
  json::object o = octavia::loadbalancer(lb);
  const ApiLoadBalancer* a = stored(lb.id, &ApiIndex::lb, &ApiState::lb);
  if (a != nullptr) {
    octavia::stored_loadbalancer(o, *a);
  } else {
    file_project(o);
  }
  return o;
}

json::object Catalog::render(const LoadBalancerView& lb, const model::ListenerView& l) const {
  json::object o = octavia::listener(lb, l);
  if (const ApiListener* a = stored(l.id, &ApiIndex::listener, &ApiState::listener)) {
    octavia::stored_listener(o, *a);
  } else {
    file_project(o);
  }
  return o;
}

json::object Catalog::render(const LoadBalancerView& lb, const model::PoolView& p) const {
  json::object o = octavia::pool(lb, p);
  if (const ApiPool* a = stored(p.id, &ApiIndex::pool, &ApiState::pool)) {
    octavia::stored_pool(o, *a);
  } else {
    file_project(o);
  }
  return o;
}

json::object Catalog::render(const LoadBalancerView& lb, const model::MemberView& m) const {
  json::object o = octavia::member(lb, m);
  if (const ApiMember* a = stored(m.id, &ApiIndex::member, &ApiState::member)) {
    octavia::stored_member(o, *a);
  } else {
    file_project(o);
  }
  return o;
}

json::object Catalog::render_monitor(const LoadBalancerView& lb, const model::PoolView& p) const {
  json::object o = octavia::health_monitor(lb, p);
  if (const ApiHealthMonitor* a =
          stored(p.health_monitor_id, &ApiIndex::monitor, &ApiState::monitor)) {
    octavia::stored_monitor(o, *a);
  } else {
    file_project(o);
  }
  return o;
}

json::object Catalog::status_tree(const LoadBalancerView& lb) const {
  json::object tree = octavia::status_tree(lb);
  if (from_api(lb)) name_tree_monitors(tree, *state());
  return tree;
}

Response route_octavia(const Target& target, const Catalog& catalog) {
  const std::vector<std::string> s(target.segments.begin() + 2, target.segments.end());
  const Call call{.s = s, .target = target, .catalog = catalog};
  // Octavia answers its API roots with the version's name.
  if (s.empty()) return ok(json::value("v2"));
  if (target.segments[1] == "octavia" && s[0] != "amphorae") {
    return framework_fault(
        404, "Not Found",
        fmt::format("/{}/octavia/{} is not a resource vigil serves", target.segments[0], s[0]));
  }
  if (auto r = route_octavia_collection("GET", target.segments[1], s, target, {}, catalog))
    return *r;
  if (s[0] == "loadbalancers") return loadbalancers(call);
  if (s[0] == "listeners") return listeners(call);
  if (s[0] == "pools") return pools(call);
  if (s[0] == "healthmonitors") return healthmonitors(call);
  return framework_fault(
      404, "Not Found",
      fmt::format("/{}/lbaas/{} is not a resource vigil serves", target.segments[0], s[0]));
}

}  // namespace vigil::admin
