#include "proxy/source_ip.h"

#include <cmath>
#include <cstdint>

namespace vigil::proxy {
namespace {

// FNV-1a, then a 64-bit finaliser (splitmix64) so that nearby addresses spread.
uint64_t hash(std::string_view a, std::string_view b) {
  uint64_t h = 1469598103934665603ull;
  for (char ch : a) h = (h ^ static_cast<uint8_t>(ch)) * 1099511628211ull;
  h ^= 0xff;
  for (char ch : b) h = (h ^ static_cast<uint8_t>(ch)) * 1099511628211ull;
  h += 0x9e3779b97f4a7c15ull;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

}  // namespace

int SourceIp::pick(const PoolSnapshot& pool, const PickContext& ctx) {
  const auto& c = pool.candidates;
  int best = -1;
  double best_score = 0;
  for (uint32_t i = 0; i < c.size(); ++i) {
    if (was_tried(ctx.tried, i)) continue;
    // Weighted rendezvous: score = -weight / ln(u), u uniform in (0,1) from the hash.
    const double u =
        (static_cast<double>(hash(ctx.client_ip, c[i].member_id) >> 11) + 0.5) / 9007199254740992.0;
    const double score = -static_cast<double>(c[i].weight) / std::log(u);
    if (best < 0 || score > best_score) {
      best = static_cast<int>(i);
      best_score = score;
    }
  }
  return best;
}

}  // namespace vigil::proxy
