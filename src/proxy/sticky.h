// Sticky: the balancer of a pool with session persistence SOURCE_IP. A client whose member is
// in the pool's stick table goes back to it while it is a candidate; otherwise (a new client,
// or its member DOWN, disabled, drained or already tried) it gets the member that weighted
// rendezvous hashing of its masked address gives, and the table remembers that one. The table
// is shared by the workers, so whichever accepts the client's next connection finds it. One per
// pool per worker, as every balancer; worker thread only.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "proxy/balancer.h"
#include "proxy/source_ip.h"
#include "proxy/stick_table.h"

namespace vigil::proxy {

class Sticky final : public Balancer {
 public:
  explicit Sticky(const PoolSnapshot& pool);
  int pick(const PoolSnapshot& pool, const PickContext& ctx) override;

  // What the table stores for a member: a hash of its id, so that an entry outlives snapshots
  // (candidate indices do not) in one word.
  static uint32_t member_key(std::string_view member_id);

 private:
  StickTable* table_;              // the snapshot's, which outlives this balancer; null: hash only
  std::vector<uint32_t> members_;  // member_key of each candidate of the snapshot it was made for
  SourceIp hash_;
};

}  // namespace vigil::proxy
