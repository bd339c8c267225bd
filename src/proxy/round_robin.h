// Smooth weighted round robin (nginx's algorithm): weights 5,1,1 give a a b a c a a, never a
// burst of five to one member. Worker thread only.
#pragma once

#include <vector>

#include "proxy/balancer.h"

namespace vigil::proxy {

class RoundRobin final : public Balancer {
 public:
  explicit RoundRobin(const PoolSnapshot& pool) : current_(pool.candidates.size(), 0) {}
  int pick(const PoolSnapshot& pool, const PickContext& ctx) override;

 private:
  std::vector<int64_t> current_;
};

}  // namespace vigil::proxy
