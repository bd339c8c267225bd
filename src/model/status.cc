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
  const bool any_serving = std::ranges::any_of(members, [](OperatingStatus s) {
    return s == OperatingStatus::kOnline || s == OperatingStatus::kNoMonitor;
  });
  if (!any_serving) return OperatingStatus::kError;
  if (std::ranges::find(members, OperatingStatus::kError) != members.end()) {
    return OperatingStatus::kDegraded;
  }
  return OperatingStatus::kOnline;
}

OperatingStatus aggregate_status(std::span<const OperatingStatus> children) {
  if (children.empty()) return OperatingStatus::kOnline;
  if (std::ranges::all_of(children,
                          [](OperatingStatus s) { return s == OperatingStatus::kError; })) {
    return OperatingStatus::kError;
  }
  if (std::ranges::all_of(children,
                          [](OperatingStatus s) { return s == OperatingStatus::kOnline; })) {
    return OperatingStatus::kOnline;
  }
  return OperatingStatus::kDegraded;
}

}  // namespace vigil::model
