#include "admin/octavia/member_changes.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace vigil::admin {
namespace {

// Everything of a pool but its members.
bool same_but_members(const ApiPool& a, const ApiPool& b) {
  return static_cast<const ApiCommon&>(a) == static_cast<const ApiCommon&>(b) &&
         a.protocol == b.protocol && a.lb_algorithm == b.lb_algorithm &&
         a.session_persistence == b.session_persistence && a.healthmonitor == b.healthmonitor;
}

// One walk of both lists: a member of `before` that is not the next of `after` was removed (or
// moved, which the removal and a put at the end carry out); what is left of `after` comes last.
PoolMembersChange members_change(const ApiPool& before, const ApiPool& after) {
  PoolMembersChange out{.pool_id = after.id};
  size_t j = 0;
  for (const ApiMember& m : before.members) {
    if (j < after.members.size() && after.members[j].id == m.id) {
      if (!(after.members[j] == m)) out.put.push_back(after.members[j]);
      ++j;
    } else {
      out.removed.push_back(m.id);
    }
  }
  out.put.insert(out.put.end(), after.members.begin() + static_cast<ptrdiff_t>(j),
                 after.members.end());
  return out;
}

}  // namespace

std::optional<std::vector<PoolMembersChange>> members_only_change(const ApiLoadBalancer& before,
                                                                  const ApiLoadBalancer& after) {
  if (static_cast<const ApiCommon&>(before) != static_cast<const ApiCommon&>(after) ||
      before.vip_address != after.vip_address || before.vip_subnet_id != after.vip_subnet_id ||
      before.vip_network_id != after.vip_network_id || before.topology != after.topology ||
      before.listeners != after.listeners || before.pools.size() != after.pools.size()) {
    return std::nullopt;
  }
  std::vector<PoolMembersChange> out;
  for (size_t i = 0; i < before.pools.size(); ++i) {
    const ApiPool& a = before.pools[i];
    const ApiPool& b = after.pools[i];
    if (!same_but_members(a, b)) return std::nullopt;
    if (a.members == b.members) continue;
    out.push_back(members_change(a, b));
  }
  return out;
}

void apply_members_change(ApiPool& pool, const PoolMembersChange& change) {
  // Indexed, so that replaying a batch update of a large pool is not a search per member.
  const std::unordered_set<std::string_view> removed(change.removed.begin(), change.removed.end());
  std::erase_if(pool.members, [&](const ApiMember& m) { return removed.contains(m.id); });
  // Room for every put first: the index holds views of the members' ids.
  pool.members.reserve(pool.members.size() + change.put.size());
  std::unordered_map<std::string_view, size_t> at;
  at.reserve(pool.members.capacity());
  for (size_t i = 0; i < pool.members.size(); ++i) at.emplace(pool.members[i].id, i);
  for (const ApiMember& m : change.put) {
    if (const auto found = at.find(m.id); found != at.end()) {
      pool.members[found->second] = m;
    } else {
      pool.members.push_back(m);
      at.emplace(pool.members.back().id, pool.members.size() - 1);
    }
  }
}

}  // namespace vigil::admin
