// Large views for the /metrics tests and benchmark: one load balancer of many members, or a fleet
// of load balancers as Octavia makes them. Test code only.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "model/status_tree.h"

namespace vigil::admin::testing {

inline model::LoadBalancerView large_view(int members) {
  using namespace std::chrono_literals;
  model::LoadBalancerView lb{.id = "lb-id", .name = "big", .started_at = model::WallTime{} + 1s};
  for (int i = 0; i < members; ++i) {
    if (i % 100 == 0) {
      model::PoolView& p = lb.pools.emplace_back();
      p.id = "pool-" + std::to_string(i / 100);
      p.config.name = p.id;
    }
    model::MemberView& m = lb.pools.back().members.emplace_back();
    m.id = "00000000-0000-0000-0000-" + std::to_string(100000000000 + i);
    m.config.name = "member-" + std::to_string(i);
    m.config.address = "10.1." + std::to_string(i / 256) + "." + std::to_string(i % 256);
    m.config.port = 6443;
    m.last_check = model::CheckResult{.outcome = model::Outcome::kOk, .http_code = 200};
    m.checks.record(2ms, true);
    m.state_since = model::WallTime{} + 10s;
    m.total_connections = 1000 + i;
    m.bytes_in = 1u << 30;
  }
  return lb;
}

// An id shaped as Octavia's (a UUID), unique per `kind` and `n`.
inline std::string fake_uuid(int kind, int n) {
  return fmt::format("{:08x}-0000-4000-8000-{:012x}", kind, n);
}

// `lbs` load balancers as bench/scale/api_state.py makes them through the Octavia API: each a
// listener and a pool of three members, named by id but for the load balancer ("lb7").
inline std::vector<model::LoadBalancerView> fleet_view(int lbs) {
  using namespace std::chrono_literals;
  std::vector<model::LoadBalancerView> out(static_cast<size_t>(lbs));
  for (int i = 0; i < lbs; ++i) {
    model::LoadBalancerView& lb = out[static_cast<size_t>(i)];
    lb.id = fake_uuid(1, i);
    lb.name = "lb" + std::to_string(i);
    lb.operating_status = model::OperatingStatus::kOnline;
    model::ListenerView& l = lb.listeners.emplace_back();
    l.id = fake_uuid(2, i);
    l.total_connections = 1000 + i;
    model::PoolView& p = lb.pools.emplace_back();
    p.id = fake_uuid(3, i);
    for (int k = 0; k < 3; ++k) {
      model::MemberView& m = p.members.emplace_back();
      m.id = fake_uuid(4, 3 * i + k);
      m.config.address = fmt::format("127.1.{}.{}", i / 250, i % 250 + 1);
      m.config.port = static_cast<uint16_t>(9000 + k);
      m.in_rotation = true;
      m.last_check = model::CheckResult{.outcome = model::Outcome::kOk};
      m.checks.record(2ms, true);
      m.state_since = model::WallTime{} + 10s;
    }
  }
  return out;
}

}  // namespace vigil::admin::testing
