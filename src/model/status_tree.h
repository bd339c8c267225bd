// A read-only picture of one load balancer at one moment: configuration, Octavia statuses and the
// last health check of every member. Built by the control thread (daemon/), rendered by admin/ as
// Octavia JSON and by the CLI as tables. Plain values; safe to copy to any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/admin_override.h"
#include "model/check_result.h"
#include "model/config.h"
#include "model/status.h"

namespace vigil::model {

struct MemberView {
  std::string id;
  std::string pool_id;
  Member config;
  std::optional<AdminOverride> admin_override;  // an operator's drain, maint or weight
  OperatingStatus operating_status = OperatingStatus::kOffline;
  Health health = Health::kUnchecked;
  bool in_rotation = false;  // receives new connections now
  std::optional<CheckResult> last_check;
  WallTime last_check_at{};
  WallTime state_since{};  // when operating_status last changed
  int consecutive_successes = 0;
  int consecutive_failures = 0;
  uint64_t active_connections = 0;
  uint64_t total_connections = 0;
  uint64_t connect_failures = 0;      // passive: connects from the data plane that failed
  uint64_t check_local_failures = 0;  // checks that could not be made here: not the member's
};

struct PoolView {
  std::string id;
  std::string load_balancer_id;
  std::vector<std::string> listener_ids;
  std::string health_monitor_id;  // empty: no monitor
  Pool config;                    // members are in `members`, not config.members
  OperatingStatus operating_status = OperatingStatus::kOnline;
  bool fail_open_active = false;  // no member usable: routing to those that connect
  std::vector<MemberView> members;
};

struct ListenerView {
  std::string id;
  std::string load_balancer_id;
  std::string default_pool_id;
  Listener config;
  std::string bound;  // "address:port" actually bound, e.g. with port 0 in tests
  OperatingStatus operating_status = OperatingStatus::kOnline;
  uint64_t active_connections = 0;
  uint64_t total_connections = 0;
};

struct Transition {
  WallTime at{};
  std::string pool_id;
  std::string pool;
  std::string member;
  std::string message;  // the log line
};

struct LoadBalancerView {
  std::string id;
  std::string name;
  std::string source_file;
  OperatingStatus operating_status = OperatingStatus::kOnline;
  WallTime started_at{};
  std::vector<ListenerView> listeners;
  std::vector<PoolView> pools;
  std::vector<Transition> recent_transitions;  // newest last, bounded
};

}  // namespace vigil::model
