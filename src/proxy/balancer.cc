#include "proxy/balancer.h"

#include "proxy/least_connections.h"
#include "proxy/round_robin.h"
#include "proxy/source_ip.h"
#include "proxy/sticky.h"

namespace vigil::proxy {

std::unique_ptr<Balancer> make_balancer(const PoolSnapshot& pool) {
  if (pool.stickiness.on) return std::make_unique<Sticky>(pool);
  switch (pool.algorithm) {
    case model::Algorithm::kRoundRobin:
      return std::make_unique<RoundRobin>(pool);
    case model::Algorithm::kLeastConnections:
      return std::make_unique<LeastConnections>();
    case model::Algorithm::kSourceIp:
      return std::make_unique<SourceIp>();
  }
  return std::make_unique<RoundRobin>(pool);
}

}  // namespace vigil::proxy
