#include "daemon/rotation.h"

#include <algorithm>

namespace vigil::daemon {

Rotation choose_rotation(std::span<const RotationInput> members, bool fail_open) {
  auto eligible = [](const RotationInput& m) { return m.enabled && m.weight > 0 && m.resolved; };
  const bool none_checked = std::ranges::none_of(members, [&](const RotationInput& m) {
    return eligible(m) && m.has_monitor && m.health != model::Health::kUnchecked;
  });
  auto healthy = [&](const RotationInput& m) {
    if (!eligible(m) || m.passive_out || m.draining) return false;
    if (!m.has_monitor || m.health == model::Health::kUp) return true;
    return m.health == model::Health::kUnchecked && none_checked;
  };
  Rotation out;
  for (bool backup : {false, true}) {
    for (size_t i = 0; i < members.size(); ++i) {
      if (members[i].backup == backup && healthy(members[i])) out.members.push_back(i);
    }
    if (!out.members.empty()) return out;
  }
  if (fail_open) {
    for (size_t i = 0; i < members.size(); ++i) {
      const RotationInput& m = members[i];
      if (eligible(m) && !m.passive_out && m.takes_connections) out.members.push_back(i);
    }
    if (out.members.empty()) {
      for (size_t i = 0; i < members.size(); ++i) {
        const RotationInput& m = members[i];
        if (eligible(m) && !m.passive_out && m.timed_out) out.members.push_back(i);
      }
    }
    out.fail_open = !out.members.empty();
  }
  return out;
}

int ramped_weight(int weight, Duration slow_start, TimePoint recovered_at, TimePoint now) {
  const int full = weight * kWeightScale;
  if (slow_start <= Duration::zero() || recovered_at == TimePoint{}) return full;
  const auto elapsed = now - recovered_at;
  if (elapsed >= slow_start) return full;
  const double share = std::chrono::duration<double>(elapsed) / slow_start;
  return std::max(1, static_cast<int>(full * share));
}

}  // namespace vigil::daemon
