#include "admin/octavia/json.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>

#include "admin/octavia/local_network.h"
#include "admin/octavia/names.h"
#include "admin/override_json.h"
#include "admin/status_json.h"
#include "admin/text.h"
#include "model/ids.h"

namespace vigil::admin::octavia {
namespace {

namespace json = boost::json;

json::array id_list(const std::vector<std::string>& ids) {
  json::array out;
  for (const std::string& id : ids) out.push_back(json::object{{"id", id}});
  return out;
}

json::array one_id(const std::string& id) { return id_list({id}); }

json::value id_or_null(const std::string& id) {
  if (id.empty()) return nullptr;
  return json::value(id);
}

// Octavia counts monitor delays and timeouts in whole seconds; round up so vigil never looks
// more eager than it is.
int64_t whole_seconds(Duration d) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  return std::max<int64_t>(1, (ms + 999) / 1000);
}

int64_t millis(Duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

// Fields every Octavia object carries the same way for objects that come from a config file.
// Octavia has a description on load balancers, listeners and pools only. A file's objects
// belong to no project (Catalog puts in admin.octavia_project).
void add_common(json::object& o, const model::LoadBalancerView& lb, bool has_description = true) {
  if (has_description) o["description"] = "";
  o["admin_state_up"] = true;
  o["project_id"] = "";
  o["tenant_id"] = "";
  o["provisioning_status"] = kOctaviaActive;
  o["created_at"] = octavia_time(lb.started_at);
  o["updated_at"] = octavia_time(lb.started_at);
  o["tags"] = json::array();
}

// Octavia's TLS fields of listeners and pools, which vigil (passing TLS through) never sets:
// Octavia 11 sends them as null on TCP listeners and pools without TLS.
void add_no_tls(json::object& o, std::initializer_list<const char*> keys) {
  for (const char* k : keys) o[k] = nullptr;
}

const model::PoolView* find_pool(const model::LoadBalancerView& lb, const std::string& id) {
  for (const model::PoolView& p : lb.pools) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

json::object member_status(const model::MemberView& m) {
  return json::object{
      {"id", m.id},
      {"name", m.config.name},
      {"address", m.config.address},
      {"protocol_port", m.config.port},
      {"operating_status", octavia_name(m.operating_status)},
      {"provisioning_status", kOctaviaActive},
  };
}

// Octavia 11 names the monitor `health_monitor` and leaves the key out when there is none.
json::object pool_status(const model::PoolView& p) {
  json::array members;
  for (const model::MemberView& m : p.members) members.push_back(member_status(m));
  json::object out{
      {"id", p.id},
      {"name", p.config.name},
      {"operating_status", octavia_name(p.operating_status)},
      {"provisioning_status", kOctaviaActive},
      {"members", std::move(members)},
  };
  if (p.config.health_monitor) {
    json::object monitor{
        {"id", p.health_monitor_id},
        {"name", p.config.name},
        {"type", octavia_name(p.config.health_monitor->type)},
        {"operating_status", octavia_name(model::OperatingStatus::kOnline)},
        {"provisioning_status", kOctaviaActive},
    };
    out["health_monitor"] = std::move(monitor);
  }
  return out;
}

}  // namespace

std::string vip_port_id(std::string_view lb_id) {
  return model::uuid_v5("vigil/port/" + std::string(lb_id));
}

json::object loadbalancer(const model::LoadBalancerView& lb) {
  std::vector<std::string> listener_ids;
  for (const model::ListenerView& l : lb.listeners) listener_ids.push_back(l.id);
  std::vector<std::string> pool_ids;
  for (const model::PoolView& p : lb.pools) pool_ids.push_back(p.id);
  std::string vip = "0.0.0.0";
  if (!lb.listeners.empty() && !lb.listeners.front().config.bind_address.empty()) {
    vip = lb.listeners.front().config.bind_address;
  }
  json::object o{
      {"id", lb.id},
      {"name", lb.name},
      {"operating_status", octavia_name(lb.operating_status)},
      {"vip_address", vip},
      // Octavia always has a VIP port; a stable id stands for it (vigil binds the address).
      {"vip_port_id", vip_port_id(lb.id)},
      {"vip_subnet_id", local_subnet_id()},
      {"vip_network_id", local_network_id()},
      {"vip_qos_policy_id", nullptr},
      {"additional_vips", json::array()},
      {"listeners", id_list(listener_ids)},
      {"pools", id_list(pool_ids)},
      {"provider", "vigil"},
      {"flavor_id", nullptr},
      {"availability_zone", nullptr},
      {"vigil_topology", kOctaviaSingle},  // a file's load balancer; the API's say their own
  };
  add_common(o, lb);
  return o;
}

json::object listener(const model::LoadBalancerView& lb, const model::ListenerView& l) {
  const model::PoolView* pool = find_pool(lb, l.default_pool_id);
  // What vigil would connect with: the pool's timeout, or a new pool's default without one (not
  // Octavia's 5 s: LAN members answer in milliseconds, and a retry goes to another one).
  const int64_t connect_ms =
      millis(pool ? pool->config.connect_timeout : model::Pool{}.connect_timeout);
  const int64_t idle_ms = millis(l.config.idle_timeout);
  const int64_t member_idle_ms = l.config.member_idle_timeout > Duration::zero()
                                     ? millis(l.config.member_idle_timeout)
                                     : idle_ms;
  json::object o{
      {"id", l.id},
      {"name", l.config.name},
      {"operating_status", octavia_name(l.operating_status)},
      {"protocol", kOctaviaTcp},
      {"protocol_port", l.config.port},
      {"connection_limit", l.config.max_connections > 0 ? l.config.max_connections : -1},
      {"default_pool_id", id_or_null(l.default_pool_id)},
      {"default_tls_container_ref", nullptr},
      {"sni_container_refs", json::array()},
      {"insert_headers", json::object()},
      {"l7policies", json::array()},
      {"loadbalancers", one_id(lb.id)},
      {"timeout_client_data", idle_ms},
      {"timeout_member_connect", connect_ms},
      {"timeout_member_data", member_idle_ms},
      {"timeout_tcp_inspect", 0},
      {"allowed_cidrs", l.config.allowed_cidrs.empty()
                            ? json::value(nullptr)
                            : json::value(json::array(l.config.allowed_cidrs.begin(),
                                                      l.config.allowed_cidrs.end()))},
      {"client_authentication", "NONE"},
  };
  add_no_tls(o, {"tls_ciphers", "tls_versions", "alpn_protocols", "client_ca_tls_container_ref",
                 "client_crl_container_ref"});
  add_common(o, lb);
  return o;
}

namespace {

// As Octavia shows it (SessionPersistenceResponse); the timeout is the one in force, 360 when the
// request gave none, where Octavia shows null.
json::value session_persistence(const model::SessionPersistence& sp) {
  if (sp.type == model::Persistence::kNone) return nullptr;
  return json::object{
      {"type", model::to_string(sp.type)},
      {"cookie_name", nullptr},
      {"persistence_timeout", std::chrono::duration_cast<std::chrono::seconds>(sp.timeout).count()},
      {"persistence_granularity",
       sp.granularity.empty() ? json::value(nullptr) : json::value(sp.granularity)},
  };
}

}  // namespace

json::object pool(const model::LoadBalancerView& lb, const model::PoolView& p) {
  std::vector<std::string> member_ids;
  for (const model::MemberView& m : p.members) member_ids.push_back(m.id);
  json::object o{
      {"id", p.id},
      {"name", p.config.name},
      {"operating_status", octavia_name(p.operating_status)},
      {"protocol", octavia_pool_protocol(p.config.proxy_protocol)},
      {"lb_algorithm", octavia_name(p.config.algorithm)},
      {"session_persistence", session_persistence(p.config.session_persistence)},
      {"members", id_list(member_ids)},
      {"listeners", id_list(p.listener_ids)},
      {"loadbalancers", one_id(lb.id)},
      {"tls_enabled", false},
  };
  add_no_tls(o, {"tls_ciphers", "tls_versions", "alpn_protocols", "tls_container_ref",
                 "ca_tls_container_ref", "crl_container_ref"});
  // Octavia (WSME) leaves an unset attribute out: no key for a pool without a monitor.
  if (!p.health_monitor_id.empty()) o["healthmonitor_id"] = p.health_monitor_id;
  add_common(o, lb);
  return o;
}

namespace {

// What the member runs with: an operator's weight override (member set --weight), else the file's.
int running_weight(const model::MemberView& m) {
  return m.admin_override && m.admin_override->weight ? *m.admin_override->weight : m.config.weight;
}

}  // namespace

json::object member(const model::LoadBalancerView& lb, const model::MemberView& m) {
  const model::Member& c = m.config;
  json::object o{
      {"id", m.id},
      {"name", c.name},
      {"address", c.address},
      {"protocol_port", c.port},
      {"weight", running_weight(m)},
      {"backup", c.backup},
      {"monitor_address",
       c.monitor_address.empty() ? json::value() : json::value(c.monitor_address)},
      {"monitor_port", c.monitor_port == 0 ? json::value() : json::value(c.monitor_port)},
      {"operating_status", octavia_name(m.operating_status)},
      {"subnet_id", nullptr},
      {"vigil_check", check_json(m)},
      {"vigil_admin_override", override_json(m.admin_override)},
  };
  add_common(o, lb, false);
  // `openstack loadbalancer member set --disable` on a file member is a maintenance override.
  o["admin_state_up"] =
      c.enabled && !(m.admin_override && m.admin_override->state == model::AdminState::kMaint);
  return o;
}

json::object health_monitor(const model::LoadBalancerView& lb, const model::PoolView& p) {
  const model::HealthMonitor& hm = *p.config.health_monitor;
  const bool http = model::uses_http(hm.type);
  json::object o{
      {"id", p.health_monitor_id},
      {"name", p.config.name},
      {"type", octavia_name(hm.type)},
      {"delay", whole_seconds(hm.interval)},
      {"timeout", whole_seconds(hm.timeout)},
      {"max_retries", hm.healthy_threshold},
      {"max_retries_down", hm.unhealthy_threshold},
      // Octavia leaves the HTTP fields null on TCP and TLS-HELLO monitors.
      {"url_path", http ? json::value(hm.path) : json::value()},
      {"expected_codes", http ? json::value(hm.expected_codes.to_string()) : json::value()},
      {"http_method", http ? json::value(hm.http_method) : json::value()},
      {"http_version", http ? json::value(1.1) : json::value()},
      {"domain_name", hm.host.empty() ? json::value() : json::value(hm.host)},
      {"pools", one_id(p.id)},
      {"operating_status", octavia_name(model::OperatingStatus::kOnline)},
  };
  add_common(o, lb, false);
  return o;
}

// Pools only under the listeners that use them, as Octavia's status tree has them: a pool no
// listener uses is not in it.
json::object status_tree(const model::LoadBalancerView& lb) {
  json::array listeners;
  for (const model::ListenerView& l : lb.listeners) {
    json::array pools;
    if (const model::PoolView* p = find_pool(lb, l.default_pool_id))
      pools.push_back(pool_status(*p));
    listeners.push_back(json::object{
        {"id", l.id},
        {"name", l.config.name},
        {"operating_status", octavia_name(l.operating_status)},
        {"provisioning_status", kOctaviaActive},
        {"pools", std::move(pools)},
    });
  }
  json::object tree{
      {"id", lb.id},
      {"name", lb.name},
      {"operating_status", octavia_name(lb.operating_status)},
      {"provisioning_status", kOctaviaActive},
      {"listeners", std::move(listeners)},
  };
  return json::object{{"statuses", json::object{{"loadbalancer", std::move(tree)}}}};
}

json::object stats(std::span<const model::ListenerView> listeners) {
  uint64_t active = 0, total = 0, in = 0, out = 0, errors = 0;
  for (const model::ListenerView& l : listeners) {
    active += l.active_connections;
    total += l.total_connections;
    in += l.counters.bytes_in;
    out += l.counters.bytes_out;
    errors += l.counters.rejected + l.counters.no_backend;
  }
  return json::object{{"stats", json::object{
                                    {"active_connections", active},
                                    {"total_connections", total},
                                    {"bytes_in", in},
                                    {"bytes_out", out},
                                    {"request_errors", errors},
                                }}};
}

}  // namespace vigil::admin::octavia
