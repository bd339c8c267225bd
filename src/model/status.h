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

// ERROR when no member takes traffic (ONLINE or NO_MONITOR) or there is no member; DEGRADED when
// some member is ERROR; else ONLINE. Disabled and draining members do not make a pool DEGRADED.
OperatingStatus pool_status(std::span<const OperatingStatus> members);

// Listeners take their pool's status; a load balancer is ERROR when every listener is, DEGRADED
// when any is not ONLINE, else ONLINE (no listener: ONLINE).
OperatingStatus aggregate_status(std::span<const OperatingStatus> children);

}  // namespace vigil::model
