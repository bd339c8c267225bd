// Octavia's operating statuses and how vigil derives them (DESIGN.md section 3). Pure functions.
#pragma once

#include <span>
#include <string_view>

#include "model/spelling.h"

namespace vigil::model {

enum class OperatingStatus { kOnline, kDraining, kOffline, kDegraded, kError, kNoMonitor };

// Octavia's names, which vigil's API, metrics and status page show.
inline constexpr Spelling<OperatingStatus> kOperatingStatusNames[] = {
    {OperatingStatus::kOnline, "ONLINE"},   {OperatingStatus::kDraining, "DRAINING"},
    {OperatingStatus::kOffline, "OFFLINE"}, {OperatingStatus::kDegraded, "DEGRADED"},
    {OperatingStatus::kError, "ERROR"},     {OperatingStatus::kNoMonitor, "NO_MONITOR"},
};
template <>
constexpr std::span<const Spelling<OperatingStatus>> spellings<OperatingStatus>() {
  return kOperatingStatusNames;
}
constexpr std::string_view to_string(OperatingStatus s) {
  return name_in(spellings<OperatingStatus>(), s);
}

// Where a member stands in its health checks. kUnchecked: no result yet.
enum class Health { kUnchecked, kUp, kDown };

struct MemberFacts {
  bool enabled = true;
  int weight = 1;
  bool draining = false;  // admin drain, or /readyz failing while the server still answers
  bool has_monitor = false;
  Health health = Health::kUnchecked;
};

// OFFLINE when disabled; DRAINING for weight 0 or draining; NO_MONITOR without a monitor; ONLINE
// while up (also while going down, before the failure threshold); ERROR while down (also while
// coming back, before the success threshold); OFFLINE before the first check, as Octavia shows a
// member that has a monitor but no result yet.
OperatingStatus member_status(const MemberFacts& m);

// As Octavia's amphora health driver reads HAProxy's backend: ONLINE when the pool has no member
// ("working or no servers": an empty pool is no failure); ERROR when it has members and none
// takes traffic (ONLINE or NO_MONITOR); DEGRADED when some member is ERROR; else ONLINE.
// Disabled and draining members do not make a pool DEGRADED.
OperatingStatus pool_status(std::span<const OperatingStatus> members);

struct ListenerFacts {
  bool enabled = true;  // the listener and its load balancer are admin_state_up
  bool bound = true;    // it listens (no bind error)
  bool full = false;    // it holds max_connections now
};

// As the amphora reports a frontend, whatever its pool (a listener without one is an open
// frontend too): OFFLINE when disabled; ERROR when it cannot listen; DEGRADED when full (HAProxy's
// FULL); else ONLINE.
OperatingStatus listener_status(const ListenerFacts& l);

struct LoadBalancerFacts {
  bool enabled = true;
  std::span<const OperatingStatus> listeners;
  std::span<const OperatingStatus> pools;  // those a listener uses; others do not count
};

// As the amphora driver: OFFLINE when disabled; ERROR when a pool is ERROR; DEGRADED when a pool
// is DEGRADED or a listener DEGRADED (full) or, vigil's addition, ERROR (it cannot listen, which
// the amphora does not see); else ONLINE (no listener: ONLINE).
OperatingStatus load_balancer_status(const LoadBalancerFacts& lb);

}  // namespace vigil::model
