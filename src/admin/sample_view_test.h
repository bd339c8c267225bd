// A hand-built LoadBalancerView for the admin and CLI tests: one listener on pool "masters" (HTTPS
// /readyz; one member down), and pool "spare" with no listener, no monitor and a hostile name.
#pragma once

#include <chrono>

#include "model/ids.h"
#include "model/status_tree.h"

namespace vigil::admin::testing {

using namespace std::chrono_literals;

// 2024-05-01T12:00:00Z
inline const model::WallTime kStarted = model::WallTime(std::chrono::seconds(1714564800));
inline const model::WallTime kNow = kStarted + 100s;

inline model::MemberView sample_member(const std::string& pool_id, const std::string& pool,
                                       const std::string& name, uint16_t port) {
  model::MemberView m;
  m.id = model::member_id("vigil", pool, name);
  m.pool_id = pool_id;
  m.config.name = name;
  m.config.address = "127.0.0.1";
  m.config.port = port;
  m.operating_status = model::OperatingStatus::kOnline;
  m.health = model::Health::kUp;
  m.in_rotation = true;
  m.last_check =
      model::CheckResult{.outcome = model::Outcome::kOk, .http_code = 200, .duration = 3ms};
  m.last_check_at = kNow - 2s;
  m.state_since = kStarted + 1s;
  m.health_status = m.operating_status;
  m.health_since = m.state_since;
  m.consecutive_successes = 20;
  m.active_connections = 4;
  m.total_connections = 120;
  m.bytes_in = 5000;
  m.bytes_out = 700;
  m.checks.record(3ms, true);
  m.checks.record(30ms, false);
  m.checks.transitions = 1;
  return m;
}

inline model::LoadBalancerView sample_view() {
  model::LoadBalancerView lb;
  lb.id = model::load_balancer_id("vigil");
  lb.name = "vigil";
  lb.source_file = "/etc/vigil/vigil.yaml";
  lb.vip_address = "10.0.0.1";
  lb.operating_status = model::OperatingStatus::kDegraded;
  lb.started_at = kStarted;

  model::PoolView masters;
  masters.id = model::pool_id("vigil", "masters");
  masters.load_balancer_id = lb.id;
  masters.health_monitor_id = model::health_monitor_id("vigil", "masters");
  masters.config.name = "masters";
  masters.config.health_monitor =
      model::HealthMonitor{{.type = model::MonitorType::kHttps, .interval = 1500ms, .timeout = 2s}};
  masters.operating_status = model::OperatingStatus::kDegraded;
  masters.members = {sample_member(masters.id, "masters", "master-01", 6443),
                     sample_member(masters.id, "masters", "master-02", 6444),
                     sample_member(masters.id, "masters", "master-03", 6445)};
  model::MemberView& down = masters.members[1];
  down.operating_status = model::OperatingStatus::kError;
  down.health = model::Health::kDown;
  down.in_rotation = false;
  down.last_check = model::CheckResult{
      .outcome = model::Outcome::kRefused, .duration = 1ms, .detail = "Connection refused"};
  down.state_since = kNow - 12s;
  down.health_status = model::OperatingStatus::kError;
  down.health_since = down.state_since;
  down.consecutive_successes = 0;
  down.consecutive_failures = 3;
  down.active_connections = 0;
  down.connect_failures = 2;
  down.disruption = {.sessions_closed = 3, .retries = 1, .replays = 2};
  down.last_disruption = model::Disruption{.status = model::OperatingStatus::kError,
                                           .at = kNow - 12s,
                                           .counts = down.disruption,
                                           .ongoing = true};

  model::ListenerView api;
  api.id = model::listener_id("vigil", "api");
  api.load_balancer_id = lb.id;
  api.default_pool_id = masters.id;
  api.config.name = "api";
  api.config.port = 6443;
  api.config.pool = "masters";
  api.bound = "[::]:6443";
  api.operating_status = model::OperatingStatus::kDegraded;
  api.active_connections = 8;
  api.total_connections = 240;
  api.counters = {.bytes_in = 123456,
                  .bytes_out = 654321,
                  .rejected = 2,
                  .no_backend = 3,
                  .retried = 4,
                  .hedged = 5,
                  .replayed = 6};
  masters.listener_ids = {api.id};

  model::PoolView spare;
  spare.id = model::pool_id("vigil", "spare");
  spare.load_balancer_id = lb.id;
  spare.config.name = "spare";
  spare.config.algorithm = model::Algorithm::kLeastConnections;
  model::MemberView hostile =
      sample_member(spare.id, "spare", "<script>alert(\"x\")</script>", 8080);
  hostile.operating_status = model::OperatingStatus::kNoMonitor;
  hostile.health = model::Health::kUnchecked;
  hostile.last_check.reset();
  hostile.last_check_at = {};
  hostile.config.monitor_address = "10.0.0.9";
  hostile.config.monitor_port = 9000;
  spare.members = {hostile};

  lb.listeners = {api};
  lb.pools = {masters, spare};
  lb.recent_transitions = {{.at = kNow - 12s,
                            .pool = "masters",
                            .member = "master-02",
                            .message = "pool masters member master-02 127.0.0.1:6444 DOWN: "
                                       "connection refused (3/3 failures)"}};
  return lb;
}

}  // namespace vigil::admin::testing
