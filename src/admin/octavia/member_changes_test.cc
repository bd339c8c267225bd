// The members-only change of a load balancer, as the journal records it: carried out on the pool
// before the write, it gives the pool after it, order included; anything else changed is none.
#include "admin/octavia/member_changes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vigil::admin {
namespace {

ApiMember member(std::string id, int weight = 1) {
  ApiMember m;
  m.id = std::move(id);
  m.address = "10.0.0.1";
  m.protocol_port = 6443;
  m.weight = weight;
  return m;
}

ApiLoadBalancer lb_with(std::vector<ApiMember> members) {
  ApiLoadBalancer lb;
  lb.id = "lb";
  ApiPool other;
  other.id = "other";
  other.members = {member("o1")};
  ApiPool pool;
  pool.id = "p";
  pool.members = std::move(members);
  lb.pools = {other, pool};
  return lb;
}

std::vector<std::string> ids(const ApiPool& p) {
  std::vector<std::string> out;
  for (const ApiMember& m : p.members) out.push_back(m.id);
  return out;
}

// Each pair is the pool's members before and after a write; the change, carried out on before,
// must give after exactly, and name only what differs.
TEST(MembersOnlyChange, CarriedOutOnThePoolBeforeItGivesThePoolAfterIt) {
  struct Case {
    const char* what;
    std::vector<ApiMember> before, after;
    size_t puts, removals;
  };
  const std::vector<Case> cases = {
      {"a member created",
       {member("a"), member("b")},
       {member("a"), member("b"), member("c")},
       1,
       0},
      {"one changed in place", {member("a"), member("b")}, {member("a", 7), member("b")}, 1, 0},
      {"one deleted", {member("a"), member("b"), member("c")}, {member("a"), member("c")}, 0, 1},
      {"reordered",
       {member("a"), member("b"), member("c")},
       {member("c"), member("a"), member("b")},
       2,
       2},
      {"replaced by a batch", {member("a"), member("b")}, {member("b", 3), member("d")}, 2, 1},
      {"emptied", {member("a"), member("b")}, {}, 0, 2},
  };
  for (const Case& c : cases) {
    const ApiLoadBalancer before = lb_with(c.before);
    const ApiLoadBalancer after = lb_with(c.after);
    const auto change = members_only_change(before, after);
    ASSERT_TRUE(change) << c.what;
    ASSERT_EQ(change->size(), 1u) << c.what << ": the other pool did not change";
    EXPECT_EQ((*change)[0].pool_id, "p");
    EXPECT_EQ((*change)[0].put.size(), c.puts) << c.what;
    EXPECT_EQ((*change)[0].removed.size(), c.removals) << c.what;
    ApiPool pool = before.pools[1];
    apply_members_change(pool, (*change)[0]);
    EXPECT_EQ(ids(pool), ids(after.pools[1])) << c.what;
    EXPECT_TRUE(pool == after.pools[1]) << c.what;
  }
}

TEST(MembersOnlyChange, NothingChangedIsAnEmptyChange) {
  const auto change = members_only_change(lb_with({member("a")}), lb_with({member("a")}));
  ASSERT_TRUE(change);
  EXPECT_TRUE(change->empty());
}

// Anything but members changed: the whole load balancer is journaled.
TEST(MembersOnlyChange, AChangeBesideTheMembersIsNone) {
  const ApiLoadBalancer before = lb_with({member("a")});
  ApiLoadBalancer renamed = lb_with({member("a"), member("b")});
  renamed.name = "renamed";
  EXPECT_FALSE(members_only_change(before, renamed));
  ApiLoadBalancer pool_changed = lb_with({member("a"), member("b")});
  pool_changed.pools[1].lb_algorithm = "LEAST_CONNECTIONS";
  EXPECT_FALSE(members_only_change(before, pool_changed));
  ApiLoadBalancer monitored = lb_with({member("a")});
  monitored.pools[1].healthmonitor = ApiHealthMonitor{};
  EXPECT_FALSE(members_only_change(before, monitored));
  ApiLoadBalancer fewer_pools = lb_with({member("a")});
  fewer_pools.pools.pop_back();
  EXPECT_FALSE(members_only_change(before, fewer_pools));
  ApiLoadBalancer listener = lb_with({member("a")});
  listener.listeners.emplace_back();
  EXPECT_FALSE(members_only_change(before, listener));
}

}  // namespace
}  // namespace vigil::admin
