#include "proxy/sticky.h"

namespace vigil::proxy {

Sticky::Sticky(const PoolSnapshot& pool) : table_(pool.stickiness.table.get()) {
  members_.reserve(pool.candidates.size());
  for (const Backend& b : pool.candidates) members_.push_back(member_key(b.member_id));
}

uint32_t Sticky::member_key(std::string_view member_id) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a, folded: two members of a pool alike is unlikely
  for (char ch : member_id) h = (h ^ static_cast<uint8_t>(ch)) * 1099511628211ull;
  return static_cast<uint32_t>(h ^ (h >> 32));
}

int Sticky::pick(const PoolSnapshot& pool, const PickContext& ctx) {
  const StickKey key =
      stick_key(ctx.client_ip, pool.stickiness.v4_prefix, pool.stickiness.v6_prefix);
  if (table_ != nullptr) {
    if (auto member = table_->find(key, ctx.now)) {
      for (uint32_t i = 0; i < members_.size() && i < pool.candidates.size(); ++i) {
        if (members_[i] == *member && !was_tried(ctx.tried, i)) return static_cast<int>(i);
      }
    }
  }
  // Hashing the masked address, not the whole one: a network shares one member from the start.
  PickContext keyed = ctx;
  keyed.client_ip = key.view();
  const int index = hash_.pick(pool, keyed);
  if (index >= 0 && table_ != nullptr && static_cast<size_t>(index) < members_.size()) {
    table_->put(key, members_[index], ctx.now);
  }
  return index;
}

}  // namespace vigil::proxy
