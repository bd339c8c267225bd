// A load balancer of `members` members in pools of 100, for the /metrics tests and benchmark.
// Test code only.
#pragma once

#include <string>

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

}  // namespace vigil::admin::testing
