// Source IP affinity by weighted rendezvous hashing: a client address maps to the same member as
// long as that member is a candidate, and when one member leaves only its clients move.
// Stateless; worker thread only.
#pragma once

#include "proxy/balancer.h"

namespace vigil::proxy {

class SourceIp final : public Balancer {
 public:
  int pick(const PoolSnapshot& pool, const PickContext& ctx) override;
};

}  // namespace vigil::proxy
