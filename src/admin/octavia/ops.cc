#include "admin/octavia/ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "admin/octavia/fields.h"
#include "admin/octavia/json_fields.h"
#include "admin/octavia/local_network.h"
#include "admin/octavia/random_id.h"

namespace vigil::admin {
namespace {

std::unexpected<ApiError> not_found(std::string_view kind, std::string_view id,
                                    const OpContext* c = nullptr) {
  if (c != nullptr && c->read_only) {
    if (auto refused = c->read_only(id)) return std::unexpected(*refused);
  }
  return api_error(404, fmt::format("{} {} not found.", kind, id));
}

// A create may name the new object's id: vigil's Octavia provider driver passes Octavia's own, so
// that both sides share one id and no mapping has to be kept. Absent: a new random id.
template <typename T>
void read_requested_id(FieldReader& r, T& o) {
  auto id = r.string("id");
  if (!id) return;
  if (!is_uuid(*id)) return r.invalid("id", "Value should be a UUID");
  o.id = *id;
}

// `project` is the project_id the new object belongs to (a load balancer's children: the load
// balancer's, whatever the body said, as Octavia does).
template <typename T>
std::optional<ApiError> stamp_new(T& o, const ApiState& s, const OpContext& c,
                                  const std::string& project) {
  o.project_id = project;
  if (o.id.empty()) {
    o.id = c.new_id();
  } else if (s.contains(o.id) || (c.read_only && c.read_only(o.id).has_value())) {
    return ApiError{409, "Already an entity with that specified id."};  // Octavia's IDAlreadyExists
  }
  o.created_at = c.now;
  o.updated_at = c.now;
  return std::nullopt;
}

// Parses {"<wrapper>": {...}} and lets `fields` read it; the first problem comes back.
template <typename F>
std::optional<ApiError> read_body(std::string_view body, std::string_view wrapper, F&& fields) {
  auto object = request_object(body, wrapper);
  if (!object) return object.error();
  FieldReader r(*object, wsme_argument(wrapper) + "." + std::string(wrapper));
  fields(r);
  return r.finish();
}

bool wildcard(std::string_view address) {
  return address.empty() || address == "0.0.0.0" || address == "::";
}

bool same_socket(std::string_view a, int a_port, std::string_view b, int b_port) {
  return a_port == b_port && (wildcard(a) || wildcard(b) || a == b);
}

// Two listeners cannot share an address and port: on one load balancer, Octavia's message; across
// load balancers or against the config file, which one holds it.
std::optional<ApiError> port_conflict(const ApiState& s, const ApiLoadBalancer& lb,
                                      const ApiListener& l, const OpContext& c) {
  for (const ApiListener& other : lb.listeners) {
    if (other.id != l.id && other.protocol_port == l.protocol_port) {
      return ApiError{409, fmt::format("Another Listener on this Load Balancer is already using "
                                       "protocol {} and protocol_port {}",
                                       other.protocol, l.protocol_port)};
    }
  }
  for (const ApiLoadBalancer& o : s.loadbalancers) {
    if (o.id == lb.id) continue;
    for (const ApiListener& other : o.listeners) {
      if (same_socket(o.vip_address, other.protocol_port, lb.vip_address, l.protocol_port)) {
        return ApiError{409, fmt::format("{}:{} is already used by listener {} of load balancer {}",
                                         lb.vip_address, l.protocol_port, other.id, o.id)};
      }
    }
  }
  for (const TakenPort& t : c.taken) {
    if (same_socket(t.address, t.port, lb.vip_address, l.protocol_port)) {
      return ApiError{409, fmt::format("{}:{} is already used by {}", lb.vip_address,
                                       l.protocol_port, t.owner)};
    }
  }
  return std::nullopt;
}

ApiPool* pool_of(ApiLoadBalancer& lb, std::string_view id) {
  for (ApiPool& p : lb.pools) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

}  // namespace

ApiResult<std::string> create_loadbalancer(ApiState& s, std::string_view body, const OpContext& c) {
  ApiLoadBalancer lb;
  auto error = read_body(body, "loadbalancer", [&](FieldReader& r) {
    read_requested_id(r, lb);
    read_loadbalancer(r, lb, Mode::kCreate);
    if (auto p = r.string("provider"); p && *p != "vigil") {
      r.fail(400, fmt::format("Provider '{}' is not enabled.", *p));
    }
  });
  if (error) return std::unexpected(*error);
  if (!lb.vip_subnet_id.empty() && lb.vip_subnet_id != local_subnet_id()) {
    return api_error(400, fmt::format("Subnet {} not found.", lb.vip_subnet_id));
  }
  if (!lb.vip_network_id.empty() && lb.vip_network_id != local_network_id()) {
    return api_error(400, fmt::format("Network {} not found.", lb.vip_network_id));
  }
  if (lb.vip_address.empty()) lb.vip_address = "127.0.0.1";
  // A pair's standby does not hold the address, and neither node does before keepalived has
  // read it from `vigil health --vips-file`: keepalived brings it, the listeners use freebind.
  if (lb.topology != kOctaviaActiveStandby && !c.is_local_address(lb.vip_address)) {
    return api_error(400, fmt::format("Validation failure: vip_address {} is not an address of "
                                      "this host; vigil binds its listeners on it",
                                      lb.vip_address));
  }
  lb.vip_subnet_id = local_subnet_id();
  lb.vip_network_id = local_network_id();
  if (auto taken = stamp_new(lb, s, c, lb.project_id.empty() ? c.project_id : lb.project_id)) {
    return std::unexpected(*taken);
  }
  s.loadbalancers.push_back(std::move(lb));
  return s.loadbalancers.back().id;
}

ApiResult<std::string> create_listener(ApiState& s, std::string_view body, const OpContext& c) {
  ApiListener l;
  std::string lb_id, pool_id;
  auto error = read_body(body, "listener", [&](FieldReader& r) {
    r.require("loadbalancer_id");
    if (auto v = r.string("loadbalancer_id")) lb_id = *v;
    if (auto v = r.string("default_pool_id")) pool_id = *v;
    read_requested_id(r, l);
    read_listener(r, l, Mode::kCreate);
  });
  if (error) return std::unexpected(*error);
  ApiLoadBalancer* lb = s.find_lb(lb_id);
  if (lb == nullptr) return not_found("Load Balancer", lb_id, &c);
  if (!pool_id.empty() && pool_of(*lb, pool_id) == nullptr) return not_found("Pool", pool_id);
  l.default_pool_id = pool_id;
  if (auto bad = cidrs_fit_vip(l, lb->vip_address)) return std::unexpected(*bad);
  if (auto conflict = port_conflict(s, *lb, l, c)) return std::unexpected(*conflict);
  if (auto taken = stamp_new(l, s, c, lb->project_id)) return std::unexpected(*taken);
  lb->listeners.push_back(std::move(l));
  return lb->listeners.back().id;
}

ApiResult<std::string> create_pool(ApiState& s, std::string_view body, const OpContext& c) {
  ApiPool p;
  std::string lb_id, listener_id;
  auto error = read_body(body, "pool", [&](FieldReader& r) {
    if (auto v = r.string("loadbalancer_id")) lb_id = *v;
    if (auto v = r.string("listener_id")) listener_id = *v;
    // Protocols Octavia itself refuses on a (TCP) listener, in its words; the others that vigil
    // does not run (HTTP, HTTPS) get vigil's refusal from read_pool().
    if (auto v = r.string("protocol"); v && !listener_id.empty() && (*v == "UDP" || *v == "SCTP")) {
      r.fail(400, fmt::format("Validation failure: The pool protocol '{}' is invalid while the "
                              "listener protocol is '{}'.",
                              *v, kOctaviaTcp));
    }
    read_requested_id(r, p);
    read_pool(r, p, Mode::kCreate);
  });
  if (error) return std::unexpected(*error);
  ApiLoadBalancer* lb = nullptr;
  ApiListener* listener = nullptr;
  if (!listener_id.empty()) {
    auto found = s.find_listener(listener_id);
    if (!found) return not_found("Listener", listener_id, &c);
    lb = found.lb;
    listener = found.item;
    if (!lb_id.empty() && lb_id != lb->id) {
      return api_error(400, fmt::format("Validation failure: listener {} is not on load balancer "
                                        "{}",
                                        listener_id, lb_id));
    }
    if (!listener->default_pool_id.empty()) {
      return api_error(409, "This listener already has a default pool");
    }
  } else if (!lb_id.empty()) {
    lb = s.find_lb(lb_id);
    if (lb == nullptr) return not_found("Load Balancer", lb_id, &c);
  } else {
    return api_error(400,
                     "Validation failure: Must provide at least one of: loadbalancer_id, "
                     "listener_id");
  }
  if (auto taken = stamp_new(p, s, c, lb->project_id)) return std::unexpected(*taken);
  if (listener != nullptr) listener->default_pool_id = p.id;
  lb->pools.push_back(std::move(p));
  return lb->pools.back().id;
}

ApiResult<std::string> create_member(ApiState& s, std::string_view pool_id, std::string_view body,
                                     const OpContext& c) {
  auto found = s.find_pool(pool_id);
  if (!found) return not_found("Pool", pool_id, &c);
  ApiMember m;
  auto error = read_body(body, "member", [&](FieldReader& r) {
    read_requested_id(r, m);
    read_member(r, m, Mode::kCreate);
  });
  if (error) return std::unexpected(*error);
  for (const ApiMember& other : found.item->members) {
    if (other.address == m.address && other.protocol_port == m.protocol_port) {
      return api_error(409, fmt::format("Another member on this pool is already using ip {} on "
                                        "protocol_port {}",
                                        m.address, m.protocol_port));
    }
  }
  if (auto taken = stamp_new(m, s, c, found.lb->project_id)) return std::unexpected(*taken);
  found.item->members.push_back(std::move(m));
  return found.item->members.back().id;
}

ApiResult<std::string> create_healthmonitor(ApiState& s, std::string_view body,
                                            const OpContext& c) {
  ApiHealthMonitor hm;
  std::string pool_id;
  auto error = read_body(body, "healthmonitor", [&](FieldReader& r) {
    r.require("pool_id");
    if (auto v = r.string("pool_id")) pool_id = *v;
    read_requested_id(r, hm);
    read_healthmonitor(r, hm, Mode::kCreate);
  });
  if (error) return std::unexpected(*error);
  auto found = s.find_pool(pool_id);
  if (!found) return not_found("Pool", pool_id, &c);
  if (found.item->healthmonitor) return api_error(409, "This pool already has a health monitor");
  if (auto taken = stamp_new(hm, s, c, found.lb->project_id)) return std::unexpected(*taken);
  found.item->healthmonitor = std::move(hm);
  return found.item->healthmonitor->id;
}

ApiResult<void> update_loadbalancer(ApiState& s, std::string_view id, std::string_view body,
                                    const OpContext& c) {
  ApiLoadBalancer* lb = s.find_lb(id);
  if (lb == nullptr) return not_found("Load Balancer", id);
  auto error = read_body(body, "loadbalancer",
                         [&](FieldReader& r) { read_loadbalancer(r, *lb, Mode::kUpdate); });
  if (error) return std::unexpected(*error);
  lb->updated_at = c.now;
  return {};
}

ApiResult<void> update_listener(ApiState& s, std::string_view id, std::string_view body,
                                const OpContext& c) {
  auto found = s.find_listener(id);
  if (!found) return not_found("Listener", id);
  ApiListener& l = *found.item;
  std::optional<std::string> pool_id;
  auto error = read_body(body, "listener", [&](FieldReader& r) {
    if (r.is_null("default_pool_id")) pool_id = "";
    if (auto v = r.string("default_pool_id")) pool_id = *v;
    read_listener(r, l, Mode::kUpdate);
  });
  if (error) return std::unexpected(*error);
  if (pool_id && !pool_id->empty() && pool_of(*found.lb, *pool_id) == nullptr) {
    return not_found("Pool", *pool_id);
  }
  if (auto bad = cidrs_fit_vip(l, found.lb->vip_address)) return std::unexpected(*bad);
  if (pool_id) l.default_pool_id = *pool_id;
  l.updated_at = c.now;
  return {};
}

ApiResult<void> update_pool(ApiState& s, std::string_view id, std::string_view body,
                            const OpContext& c) {
  auto found = s.find_pool(id);
  if (!found) return not_found("Pool", id);
  auto error =
      read_body(body, "pool", [&](FieldReader& r) { read_pool(r, *found.item, Mode::kUpdate); });
  if (error) return std::unexpected(*error);
  found.item->updated_at = c.now;
  return {};
}

ApiResult<void> update_member(ApiState& s, std::string_view id, std::string_view body,
                              const OpContext& c) {
  auto found = s.find_member(id);
  if (!found) return not_found("Member", id);
  auto error = read_body(body, "member",
                         [&](FieldReader& r) { read_member(r, *found.item, Mode::kUpdate); });
  if (error) return std::unexpected(*error);
  found.item->updated_at = c.now;
  return {};
}

ApiResult<void> update_healthmonitor(ApiState& s, std::string_view id, std::string_view body,
                                     const OpContext& c) {
  auto found = s.find_monitor(id);
  if (!found) return not_found("Health Monitor", id);
  auto error = read_body(body, "healthmonitor", [&](FieldReader& r) {
    read_healthmonitor(r, *found.item, Mode::kUpdate);
  });
  if (error) return std::unexpected(*error);
  found.item->updated_at = c.now;
  return {};
}

ApiResult<void> delete_loadbalancer(ApiState& s, std::string_view id, bool cascade) {
  const auto it = std::ranges::find(s.loadbalancers, id, &ApiLoadBalancer::id);
  if (it == s.loadbalancers.end()) return not_found("Load Balancer", id);
  if (!cascade && (!it->listeners.empty() || !it->pools.empty())) {
    return api_error(400, fmt::format("Validation failure: Cannot delete Load Balancer {} - it has "
                                      "children",
                                      id));
  }
  s.loadbalancers.erase(static_cast<size_t>(it - s.loadbalancers.begin()));
  return {};
}

ApiResult<void> delete_listener(ApiState& s, std::string_view id) {
  auto found = s.find_listener(id);
  if (!found) return not_found("Listener", id);
  std::erase_if(found.lb->listeners, [&](const ApiListener& l) { return l.id == id; });
  return {};
}

ApiResult<void> delete_pool(ApiState& s, std::string_view id) {
  auto found = s.find_pool(id);
  if (!found) return not_found("Pool", id);
  for (ApiListener& l : found.lb->listeners) {
    if (l.default_pool_id == id) l.default_pool_id.clear();
  }
  std::erase_if(found.lb->pools, [&](const ApiPool& p) { return p.id == id; });
  return {};
}

ApiResult<void> delete_member(ApiState& s, std::string_view id) {
  auto found = s.find_member(id);
  if (!found) return not_found("Member", id);
  std::erase_if(found.pool->members, [&](const ApiMember& m) { return m.id == id; });
  return {};
}

ApiResult<void> delete_healthmonitor(ApiState& s, std::string_view id) {
  auto found = s.find_monitor(id);
  if (!found) return not_found("Health Monitor", id);
  found.pool->healthmonitor.reset();
  return {};
}

}  // namespace vigil::admin
