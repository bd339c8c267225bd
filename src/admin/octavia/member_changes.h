// What a write changed of one load balancer when it changed members only: a member created,
// updated or deleted, or a pool's members replaced by a batch update. The journal records those
// members rather than the whole load balancer (object_store.h), so that a write's bytes do not
// grow with its pool: at 1,000 members the whole load balancer was about 300 KB a write. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "admin/octavia/objects.h"

namespace vigil::admin {

// One pool's part of such a change. Carried out on the pool before it (apply_members_change),
// `removed` first, then each of `put` in place of the member of its id or, when there is none,
// last: that gives the pool after it, its order included.
struct PoolMembersChange {
  std::string pool_id;
  std::vector<ApiMember> put;
  std::vector<std::string> removed;
};

// The members-only change that turns `before` into `after` (the same load balancer after a
// write), one entry per pool whose members changed; none when anything other than members
// changed (then the whole load balancer is journaled). Costs one comparison per member.
std::optional<std::vector<PoolMembersChange>> members_only_change(const ApiLoadBalancer& before,
                                                                  const ApiLoadBalancer& after);

// Carries out `change` on `pool` (see above).
void apply_members_change(ApiPool& pool, const PoolMembersChange& change);

}  // namespace vigil::admin
