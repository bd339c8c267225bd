#include "proxy/least_connections.h"

namespace vigil::proxy {

int LeastConnections::pick(const PoolSnapshot& pool, const PickContext& ctx) {
  const auto& c = pool.candidates;
  const uint32_t n = static_cast<uint32_t>(c.size());
  if (n == 0) return -1;
  const uint32_t start = rotation_++ % n;
  int best = -1;
  uint64_t best_active = 0;
  int best_weight = 1;
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t i = (start + k) % n;
    if (was_tried(ctx.tried, i)) continue;
    const uint64_t active = c[i].stats->active.load(std::memory_order_relaxed);
    // active/weight < best_active/best_weight, without division.
    if (best < 0 || active * static_cast<uint64_t>(best_weight) <
                        best_active * static_cast<uint64_t>(c[i].weight)) {
      best = static_cast<int>(i);
      best_active = active;
      best_weight = c[i].weight;
    }
  }
  return best;
}

}  // namespace vigil::proxy
