// Least connections, weighted: the candidate with the fewest active sessions per unit of weight,
// counted across all workers (the shared per-member counters). Ties rotate so that an idle pool
// does not send everything to its first member. Worker thread only.
#pragma once

#include "proxy/balancer.h"

namespace vigil::proxy {

class LeastConnections final : public Balancer {
 public:
  int pick(const PoolSnapshot& pool, const PickContext& ctx) override;

 private:
  uint32_t rotation_ = 0;
};

}  // namespace vigil::proxy
