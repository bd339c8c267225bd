#include "config/timing.h"

#include <gtest/gtest.h>

#include "base/duration.h"

namespace vigil::config {
namespace {

using namespace std::chrono_literals;

model::HealthMonitor monitor(Duration interval, Duration fast, Duration timeout, int rise,
                             int fall) {
  model::HealthMonitor m;
  m.interval = interval;
  m.fast_interval = fast;
  m.timeout = timeout;
  m.healthy_threshold = rise;
  m.unhealthy_threshold = fall;
  return m;
}

TEST(PoolTiming, Table) {
  struct Case {
    const char* description;
    model::HealthMonitor monitor;
    Duration down;
    Duration up;
  };
  const Case cases[] = {
      // 5.5 + 2 * max(1.1, 2) + 2 and 5.5 + 1 * 1.1 + 2.
      {.description = "vigil defaults",
       .monitor = model::HealthMonitor{},
       .down = 11500ms,
       .up = 8600ms},
      // The OpenShift article's HAProxy: inter 10s (fastinter defaults to inter), fall 3,
      // rise 2, timeout check 10s: 11 + 2 * 11 + 10 and 11 + 11 + 10.
      {.description = "OpenShift article's HAProxy values",
       .monitor = monitor(10s, 10s, 10s, 2, 3),
       .down = 43s,
       .up = 32s},
      // Same, with vigil's fast interval: 11 + 2 * max(1.1, 10) + 10 and 11 + 1.1 + 10.
      {.description = "OpenShift values with fast_interval 1s",
       .monitor = monitor(10s, 1s, 10s, 2, 3),
       .down = 41s,
       .up = 22100ms},
      // A timeout longer than the interval delays each check: 1.1 + 2 * 3 + 3 and
      // max(1.1, 3) + 1.1 + 3.
      {.description = "timeout > interval",
       .monitor = monitor(1s, 1s, 3s, 2, 3),
       .down = 10100ms,
       .up = 7100ms},
      {.description = "thresholds of 1",
       .monitor = monitor(5s, 1s, 2s, 1, 1),
       .down = 7500ms,
       .up = 7500ms},
      {.description = "fast checks",
       .monitor = monitor(2s, 500ms, 1s, 3, 2),
       .down = 2200ms + 1s + 1s,
       .up = 2200ms + 2 * 550ms + 1s},
  };
  for (const Case& c : cases) {
    model::Pool pool;
    pool.health_monitor = c.monitor;
    const auto timing = pool_timing(pool);
    ASSERT_TRUE(timing) << c.description;
    EXPECT_EQ(timing->worst_mark_down, c.down)
        << c.description << ": " << format_duration(timing->worst_mark_down);
    EXPECT_EQ(timing->worst_mark_up, c.up)
        << c.description << ": " << format_duration(timing->worst_mark_up);
  }
}

TEST(PoolTiming, NoneWithoutAMonitor) { EXPECT_FALSE(pool_timing(model::Pool{})); }

}  // namespace
}  // namespace vigil::config
