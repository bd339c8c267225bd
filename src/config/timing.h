// Worst-case failover times of a pool, from its health monitor and the health scheduler's rules.
// Shown by `vigil check`; checked against OpenShift's 30 s rule by advise(). Pure functions.
//
// The scheduler's rules: a member's next check starts at the previous start + interval * (1 + u),
// u uniform in [-0.1, +0.1]; while a change is under way (after a first result that disagrees
// with the member's status) fast_interval takes the place of interval; a check that runs longer
// than that spacing delays the next one until it completes; a check fails after at most timeout.
//
// For a member that dies just after a passing check started, each later check times out:
//   worst_mark_down = 1.1 * interval
//                     + (unhealthy_threshold - 1) * max(1.1 * fast_interval, timeout) + timeout
// For a member that recovers just after a failing check started (that check may still time out,
// and so delay the next when timeout > 1.1 * interval), each later check answers within timeout:
//   worst_mark_up   = max(1.1 * interval, timeout) + (healthy_threshold - 1) * 1.1 * fast_interval
//                     + timeout
// Defaults (5s, 1s, 2s, rise 2, fall 3): 11.5 s down, 8.6 s up.
#pragma once

#include <optional>

#include "base/clock.h"
#include "model/config.h"

namespace vigil::config {

struct PoolTiming {
  Duration worst_mark_down;  // a member dies -> it is marked down
  Duration worst_mark_up;    // a member recovers -> it is marked up
};

// nullopt for a pool without a health monitor.
std::optional<PoolTiming> pool_timing(const model::Pool& pool);
PoolTiming monitor_timing(const model::HealthMonitor& monitor);

}  // namespace vigil::config
