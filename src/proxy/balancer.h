// Balancer: picks a backend among a pool snapshot's candidates for one new connection. One
// instance per pool per worker (its state is that worker's alone); rebuilt when the snapshot's
// version changes. Worker thread only; must not block or allocate on pick().
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "proxy/snapshot.h"

namespace vigil::proxy {

struct PickContext {
  std::string_view client_ip;       // raw address bytes, for source_ip
  std::span<const uint32_t> tried;  // candidate indices that already failed for this connection
  TimePoint now{};                  // for stick tables' timeouts
};

class Balancer {
 public:
  virtual ~Balancer() = default;
  // Returns a candidate index, or -1 when every candidate was tried (or there are none).
  virtual int pick(const PoolSnapshot& pool, const PickContext& ctx) = 0;
};

std::unique_ptr<Balancer> make_balancer(const PoolSnapshot& pool);

// Helpers shared by the policies.
inline bool was_tried(std::span<const uint32_t> tried, uint32_t index) {
  for (uint32_t t : tried) {
    if (t == index) return true;
  }
  return false;
}

}  // namespace vigil::proxy
