#include "daemon/disruption.h"

namespace vigil::daemon {

using model::OperatingStatus;

bool in_service(OperatingStatus s) {
  return s == OperatingStatus::kOnline || s == OperatingStatus::kNoMonitor;
}

void note_transition(MemberRuntime& m, OperatingStatus before, model::WallTime at) {
  const model::DisruptionCounts now = m.stats->disruption();
  const bool was_in = in_service(before);
  const bool is_in = in_service(m.status);
  if (is_in) {
    if (!was_in && m.disruption) {
      m.disruption->counts = now - m.counted_since;
      m.disruption->ongoing = false;
    }
    m.counted_since = now;  // what happens from here on belongs to its next time out
    return;
  }
  if (was_in || !m.disruption || !m.disruption->ongoing) {
    m.disruption = model::Disruption{.status = m.status, .at = at, .ongoing = true};
  } else {
    m.disruption->status = m.status;  // DRAINING, then ERROR: still the same time out
  }
}

std::optional<model::Disruption> last_disruption(const MemberRuntime& m) {
  if (!m.disruption) return std::nullopt;
  model::Disruption d = *m.disruption;
  if (d.ongoing) d.counts = m.stats->disruption() - m.counted_since;
  return d;
}

model::DisruptionCounts disruption_counts(const MemberRuntime& m) {
  auto d = last_disruption(m);
  return d ? d->counts : model::DisruptionCounts{};
}

}  // namespace vigil::daemon
