#include "proxy/round_robin.h"

namespace vigil::proxy {

int RoundRobin::pick(const PoolSnapshot& pool, const PickContext& ctx) {
  const auto& c = pool.candidates;
  if (current_.size() != c.size()) current_.assign(c.size(), 0);
  int64_t total = 0;
  int best = -1;
  for (uint32_t i = 0; i < c.size(); ++i) {
    if (was_tried(ctx.tried, i)) continue;
    current_[i] += c[i].weight;
    total += c[i].weight;
    if (best < 0 || current_[i] > current_[best]) best = static_cast<int>(i);
  }
  if (best >= 0) current_[best] -= total;
  return best;
}

}  // namespace vigil::proxy
