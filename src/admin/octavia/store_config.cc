// config_of(): an API load balancer as the model::Config the daemon runs (object_store.h).
#include <algorithm>
#include <chrono>

#include "admin/octavia/names.h"
#include "admin/octavia/object_store.h"

namespace vigil::admin {
namespace {

using namespace std::chrono_literals;

// The names were validated on the way in (fields.cc); an unknown one keeps the model's default
// rather than crash.
model::MonitorType monitor_type(std::string_view type) {
  return octavia_monitor_type(type).value_or(model::MonitorType::kTcp);
}

model::Algorithm algorithm(std::string_view a) {
  return octavia_algorithm(a).value_or(model::Algorithm::kRoundRobin);
}

model::HealthMonitor monitor_of(const ApiHealthMonitor& hm) {
  model::HealthMonitor out;
  out.id = hm.id;
  out.type = monitor_type(hm.type);
  if (!hm.url_path.empty()) out.path = hm.url_path;
  if (!hm.http_method.empty()) out.http_method = hm.http_method;
  out.host = hm.domain_name;
  out.tls.server_name = hm.domain_name;  // SNI for TLS-HELLO and HTTPS
  if (!hm.expected_codes.empty()) {
    // Validated on the way in; a parse failure keeps the default (200) rather than crash.
    if (auto codes = model::ExpectedCodes::parse(hm.expected_codes)) out.expected_codes = *codes;
  }
  out.interval = std::chrono::seconds(hm.delay);
  // Octavia has no faster interval between states; vigil's 1 s keeps its quick reaction.
  out.fast_interval = std::min<Duration>(out.interval, 1s);
  out.timeout = std::chrono::seconds(hm.timeout);
  out.healthy_threshold = hm.max_retries;
  out.unhealthy_threshold = hm.max_retries_down;
  return out;
}

model::Pool pool_of(const ApiPool& p, const ApiLoadBalancer& lb, Purpose purpose) {
  model::Pool out;
  out.id = p.id;
  out.name = p.id;
  out.algorithm = algorithm(p.lb_algorithm);
  out.enabled = p.admin_state_up;
  // Octavia has no field for it: an amphora's HAProxy has no server when all are down and
  // refuses every connection. vigil fails open as the file's pools do, unless the pool carries
  // the tag that asks for the amphora's way.
  out.fail_open = std::find(p.tags.begin(), p.tags.end(), kFailClosedTag) == p.tags.end();
  out.proxy_protocol = model::value_in<model::ProxyProtocol>(kOctaviaPoolProtocols, p.protocol)
                           .value_or(model::ProxyProtocol::kOff);
  // Octavia sets the connect timeout on the listener; vigil on the pool it connects for.
  for (const ApiListener& l : lb.listeners) {
    if (l.default_pool_id == p.id && l.timeout_member_connect.value_or(0) > 0) {
      out.connect_timeout = std::chrono::milliseconds(*l.timeout_member_connect);
    }
  }
  if (p.session_persistence && p.session_persistence->type == "SOURCE_IP") {
    out.session_persistence = {
        .type = model::Persistence::kSourceIp,
        .timeout = std::chrono::seconds(p.session_persistence->persistence_timeout.value_or(360)),
        .granularity = p.session_persistence->persistence_granularity};
  }
  if (p.healthmonitor && (p.healthmonitor->admin_state_up || purpose != Purpose::kRun)) {
    out.health_monitor = monitor_of(*p.healthmonitor);
  }
  if (purpose == Purpose::kShowShell) return out;
  out.members.reserve(p.members.size());
  for (const ApiMember& m : p.members) out.members.push_back(member_config_of(m, p));
  return out;
}

model::Listener listener_of(const ApiListener& l, const ApiLoadBalancer& lb) {
  model::Listener out;
  out.id = l.id;
  out.name = l.id;
  out.bind_address = lb.vip_address;
  // Only the pair's holder has the address; the other node listens before keepalived moves it.
  out.freebind = lb.topology == kOctaviaActiveStandby;
  out.port = static_cast<uint16_t>(l.protocol_port);
  out.pool = l.default_pool_id;
  if (l.connection_limit > 0) out.max_connections = l.connection_limit;
  out.at_limit = model::AtLimit::kQueue;  // an amphora's maxconn
  out.allowed_cidrs = l.allowed_cidrs;
  // Octavia's 50 s default would cut long watches; unset or 0 keeps vigil's 1 h.
  if (l.timeout_client_data.value_or(0) > 0) {
    out.idle_timeout = std::chrono::milliseconds(*l.timeout_client_data);
  }
  // Set, it applies as an amphora's `timeout server` does; unset, vigil's idle timeout decides.
  if (l.timeout_member_data.value_or(0) > 0) {
    out.member_idle_timeout = std::chrono::milliseconds(*l.timeout_member_data);
  }
  return out;
}

}  // namespace

model::Member member_config_of(const ApiMember& m, const ApiPool& pool) {
  model::Member member;
  member.id = m.id;
  member.name = m.id;
  member.address = m.address;
  member.port = static_cast<uint16_t>(m.protocol_port);
  member.weight = m.weight;
  member.backup = m.backup;
  member.enabled = m.admin_state_up && pool.admin_state_up;
  member.monitor_address = m.monitor_address;
  member.monitor_port = static_cast<uint16_t>(m.monitor_port);
  return member;
}

model::Config config_of(const ApiLoadBalancer& lb, Purpose purpose) {
  model::Config out;
  out.id = lb.id;
  out.origin = model::Origin::kApi;
  out.name = lb.id;
  out.vip_address = lb.vip_address;
  for (const ApiListener& l : lb.listeners) {
    const bool up = lb.admin_state_up && l.admin_state_up;
    if (up || purpose != Purpose::kRun) out.listeners.push_back(listener_of(l, lb));
  }
  for (const ApiPool& p : lb.pools) out.pools.push_back(pool_of(p, lb, purpose));
  return out;
}

}  // namespace vigil::admin
