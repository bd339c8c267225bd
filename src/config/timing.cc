#include "config/timing.h"

#include <algorithm>

namespace vigil::config {
namespace {

// The longest spacing jitter allows. Integer arithmetic keeps the results exact.
Duration stretched(Duration d) { return d * (100 + model::kCheckJitterPercent) / 100; }

}  // namespace

PoolTiming monitor_timing(const model::HealthMonitor& m) {
  const Duration failing_spacing = std::max(stretched(m.fast_interval), m.timeout);
  return {
      .worst_mark_down =
          stretched(m.interval) + (m.unhealthy_threshold - 1) * failing_spacing + m.timeout,
      .worst_mark_up = std::max(stretched(m.interval), m.timeout) +
                       (m.healthy_threshold - 1) * stretched(m.fast_interval) + m.timeout,
  };
}

std::optional<PoolTiming> pool_timing(const model::Pool& pool) {
  if (!pool.health_monitor) return std::nullopt;
  return monitor_timing(*pool.health_monitor);
}

}  // namespace vigil::config
