#include "model/status.h"

#include <algorithm>

namespace vigil::model {

OperatingStatus member_status(const MemberFacts& m) {
  if (!m.enabled) return OperatingStatus::kOffline;
  if (m.weight == 0 || m.draining) return OperatingStatus::kDraining;
  if (!m.has_monitor) return OperatingStatus::kNoMonitor;
  switch (m.health) {
    case Health::kUp:
      return OperatingStatus::kOnline;
    case Health::kDown:
      return OperatingStatus::kError;
    case Health::kUnchecked:
      return OperatingStatus::kOffline;
  }
  return OperatingStatus::kError;
}

OperatingStatus pool_status(std::span<const OperatingStatus> members) {
  if (members.empty()) return OperatingStatus::kOnline;
  const bool any_serving = std::ranges::any_of(members, [](OperatingStatus s) {
    return s == OperatingStatus::kOnline || s == OperatingStatus::kNoMonitor;
  });
  if (!any_serving) return OperatingStatus::kError;
  if (std::ranges::find(members, OperatingStatus::kError) != members.end()) {
    return OperatingStatus::kDegraded;
  }
  return OperatingStatus::kOnline;
}

OperatingStatus listener_status(const ListenerFacts& l) {
  if (!l.enabled) return OperatingStatus::kOffline;
  if (!l.bound) return OperatingStatus::kError;
  if (l.full) return OperatingStatus::kDegraded;
  return OperatingStatus::kOnline;
}

OperatingStatus load_balancer_status(const LoadBalancerFacts& lb) {
  if (!lb.enabled) return OperatingStatus::kOffline;
  auto any = [](std::span<const OperatingStatus> all, OperatingStatus s) {
    return std::ranges::find(all, s) != all.end();
  };
  if (any(lb.pools, OperatingStatus::kError)) return OperatingStatus::kError;
  if (any(lb.pools, OperatingStatus::kDegraded) || any(lb.listeners, OperatingStatus::kDegraded) ||
      any(lb.listeners, OperatingStatus::kError)) {
    return OperatingStatus::kDegraded;
  }
  return OperatingStatus::kOnline;
}

}  // namespace vigil::model
