// The keys of the Octavia API's objects in etcd and the writes that change them: a member write
// sends that member's key and its pool's, whatever the pool's size; a load balancer's own change
// sends its key without members; a delete of a load balancer or pool is one range delete; members
// that etcd holds inside the load balancer's value move to keys of their own; what does not fit
// in one transaction is written whole.
#include "admin/octavia/etcd_layout.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "admin/octavia/etcd_test_objects.h"
#include "admin/octavia/store_json.h"

namespace vigil::admin {
namespace {

using Kind = etcd::Op::Kind;

using namespace etcd_test;  // NOLINT: the objects every test here builds

// What this node knows after it wrote `l` itself at revision 7.
Revisions known_as_written(const ApiLoadBalancer& l) {
  Revisions r;
  for (const etcd::Op& op : puts_of(l, kPrefix)) r[op.key] = 7;
  return r;
}

ApiState with(std::initializer_list<ApiLoadBalancer> lbs) {
  ApiState s;
  for (const ApiLoadBalancer& l : lbs) s.loadbalancers.push_back(l);
  return s;
}

std::vector<std::string> keys(const std::vector<etcd::Op>& ops) {
  std::vector<std::string> out;
  for (const etcd::Op& op : ops) out.push_back(op.key);
  return out;
}

size_t bytes(const WritePlan& plan) {
  size_t n = 0;
  for (const etcd::Op& op : plan.ops) n += op.key.size() + op.value.size();
  for (const etcd::Compare& c : plan.compares) n += c.key.size();
  return n;
}

TEST(EtcdLayout, KeysNameTheObjects) {
  const std::string m = member_id(1);
  EXPECT_EQ(lb_key(kPrefix, kA), "/vigil/loadbalancers/" + kA);
  EXPECT_EQ(pool_key(kPrefix, kA, kPool), "/vigil/pools/" + kA + "/" + kPool);
  EXPECT_EQ(member_key(kPrefix, kA, kPool, m), "/vigil/members/" + kA + "/" + kPool + "/" + m);
  EXPECT_TRUE(member_key(kPrefix, kA, kPool, m).starts_with(members_of_pool(kPrefix, kA, kPool)));
  EXPECT_TRUE(members_of_pool(kPrefix, kA, kPool).starts_with(members_of_lb(kPrefix, kA)));
  EXPECT_TRUE(pool_key(kPrefix, kA, kPool).starts_with(pools_of_lb(kPrefix, kA)));
  EXPECT_FALSE(lb_key(kPrefix, kA + "0").starts_with(members_of_lb(kPrefix, kA)));

  using K = KeyName::Kind;
  EXPECT_EQ(name_of(kPrefix, lb_key(kPrefix, kA)), (KeyName{.kind = K::kLoadBalancer, .lb = kA}));
  EXPECT_EQ(name_of(kPrefix, pool_key(kPrefix, kA, kPool)),
            (KeyName{.kind = K::kPool, .lb = kA, .pool = kPool}));
  EXPECT_EQ(name_of(kPrefix, member_key(kPrefix, kA, kPool, m)),
            (KeyName{.kind = K::kMember, .lb = kA, .pool = kPool, .member = m}));
  EXPECT_EQ(name_of(kPrefix, marker_key(kPrefix)), (KeyName{.kind = K::kMarker}));
  for (const std::string bad :
       {"/vigil/loadbalancers/", "/vigil/loadbalancers/a/b", "/other/loadbalancers/a",
        "/vigil/pools/a", "/vigil/pools/a//", "/vigil/members/a/b", "/vigil/members/a/b/c/d",
        "/vigil/members/a//c", "/vigil/something", "/vigil/vigil2"}) {
    EXPECT_EQ(name_of(kPrefix, bad), std::nullopt) << bad;
  }
}

// The issue's goal: what a member write sends does not grow with its pool.
TEST(EtcdLayout, AMemberWriteSendsItsKeyAndItsPoolsWhateverThePoolsSize) {
  std::vector<size_t> sizes;
  for (int n : {1, 10, 100}) {
    const ApiLoadBalancer was = lb(kA, "a", n);
    ApiState after = with({was});
    after.loadbalancers.edit(0).pools[0].members.push_back(member(1000));
    const WritePlan plan = plan_write(with({was}), after, known_as_written(was), kPrefix);
    const std::string added = member_key(kPrefix, kA, kPool, member_id(1000));
    EXPECT_EQ(keys(plan.ops),
              (std::vector<std::string>{pool_key(kPrefix, kA, kPool), added, marker_key(kPrefix)}))
        << n;
    EXPECT_EQ(plan.ops[1].value, member_to_json(member(1000)));
    ASSERT_EQ(plan.compares.size(), 1u);
    EXPECT_EQ(plan.compares[0].key, pool_key(kPrefix, kA, kPool));
    EXPECT_EQ(plan.compares[0].mod_revision, 7);
    EXPECT_EQ(plan.lb_ids, std::vector<std::string>{kA});
    sizes.push_back(bytes(plan));
  }
  EXPECT_EQ(sizes[0], sizes[1]);
  EXPECT_EQ(sizes[1], sizes[2]);
}

TEST(EtcdLayout, AMemberChangedOrDeletedIsItsKeyAloneBesideThePools) {
  const ApiLoadBalancer was = lb(kA, "a", 3);
  ApiState after = with({was});
  after.loadbalancers.edit(0).pools[0].members[1].weight = 5;
  after.loadbalancers.edit(0).pools[0].members.erase(
      after.loadbalancers.edit(0).pools[0].members.begin() + 2);
  const WritePlan plan = plan_write(with({was}), after, known_as_written(was), kPrefix);
  ASSERT_EQ(plan.ops.size(), 4u);
  EXPECT_EQ(plan.ops[1].key, member_key(kPrefix, kA, kPool, member_id(1)));
  EXPECT_EQ(plan.ops[1].kind, Kind::kPut);
  EXPECT_EQ(plan.ops[2].key, member_key(kPrefix, kA, kPool, member_id(2)));
  EXPECT_EQ(plan.ops[2].kind, Kind::kDelete);
  EXPECT_EQ(plan.compares.size(), 1u);  // the pool's key guards every member of it
}

TEST(EtcdLayout, ALoadBalancersOwnChangeSendsItWithoutItsMembers) {
  const ApiLoadBalancer was = lb(kA, "a", 3);
  ApiState after = with({was});
  after.loadbalancers.edit(0).name = "a2";
  const WritePlan plan = plan_write(with({was}), after, known_as_written(was), kPrefix);
  ASSERT_EQ(plan.ops.size(), 2u);
  EXPECT_EQ(plan.ops[0].key, lb_key(kPrefix, kA));
  EXPECT_EQ(plan.ops[0].value, lb_shell_to_json(after.loadbalancers[0]));
  EXPECT_EQ(plan.ops[0].value.find(member_id(0)), std::string::npos);
  ASSERT_EQ(plan.compares.size(), 1u);
  EXPECT_EQ(plan.compares[0].key, lb_key(kPrefix, kA));
  EXPECT_EQ(plan.compares[0].mod_revision, 7);
}

TEST(EtcdLayout, ANewLoadBalancerIsPutWithItsPoolsAndMembersAndMustNotExistYet) {
  const ApiLoadBalancer made = lb(kB, "b", 2);
  const WritePlan plan = plan_write({}, with({made}), {}, kPrefix);
  EXPECT_EQ(keys(plan.ops),
            (std::vector<std::string>{lb_key(kPrefix, kB), pool_key(kPrefix, kB, kPool),
                                      member_key(kPrefix, kB, kPool, member_id(0)),
                                      member_key(kPrefix, kB, kPool, member_id(1)),
                                      marker_key(kPrefix)}));
  ASSERT_EQ(plan.compares.size(), 1u);
  EXPECT_EQ(plan.compares[0].key, lb_key(kPrefix, kB));
  EXPECT_EQ(plan.compares[0].mod_revision, 0);
}

TEST(EtcdLayout, DeletingALoadBalancerOrAPoolDeletesItsMembersWithOneRangeDelete) {
  const ApiLoadBalancer was = lb(kA, "a", 100);
  const WritePlan gone = plan_write(with({was}), {}, known_as_written(was), kPrefix);
  ASSERT_EQ(gone.ops.size(), 4u);
  EXPECT_EQ(gone.ops[0].kind, Kind::kDelete);
  EXPECT_EQ(gone.ops[1].kind, Kind::kDeletePrefix);
  EXPECT_EQ(gone.ops[1].key, members_of_lb(kPrefix, kA));
  EXPECT_EQ(gone.ops[2].kind, Kind::kDeletePrefix);
  EXPECT_EQ(gone.ops[2].key, pools_of_lb(kPrefix, kA));
  ASSERT_EQ(gone.compares.size(), 1u);
  EXPECT_EQ(gone.compares[0].mod_revision, 7);
  EXPECT_EQ(gone.lb_ids, std::vector<std::string>{kA});  // named by the 409

  ApiState after = with({was});
  after.loadbalancers.edit(0).pools.clear();
  const WritePlan pool_gone = plan_write(with({was}), after, known_as_written(was), kPrefix);
  ASSERT_EQ(pool_gone.ops.size(), 4u);
  EXPECT_EQ(pool_gone.ops[0].key, lb_key(kPrefix, kA));
  EXPECT_EQ(pool_gone.ops[1].key, pool_key(kPrefix, kA, kPool));
  EXPECT_EQ(pool_gone.ops[1].kind, Kind::kDelete);
  EXPECT_EQ(pool_gone.ops[2].key, members_of_pool(kPrefix, kA, kPool));
  EXPECT_EQ(pool_gone.ops[2].kind, Kind::kDeletePrefix);
  EXPECT_EQ(pool_gone.compares.size(), 2u);  // the load balancer's and the pool's
}

// Written by vigil before members had keys: the value holds them, and no key of theirs is known.
TEST(EtcdLayout, MembersInsideTheLoadBalancersValueMoveToKeysOfTheirOwnOnItsNextWrite) {
  const ApiLoadBalancer was = lb(kA, "a", 2);
  const Revisions whole = {{lb_key(kPrefix, kA), 5}};
  ApiState after = with({was});
  after.loadbalancers.edit(0).pools[0].members.push_back(member(2));
  const WritePlan plan = plan_write(with({was}), after, whole, kPrefix);
  EXPECT_EQ(keys(plan.ops),
            (std::vector<std::string>{lb_key(kPrefix, kA), pool_key(kPrefix, kA, kPool),
                                      member_key(kPrefix, kA, kPool, member_id(0)),
                                      member_key(kPrefix, kA, kPool, member_id(1)),
                                      member_key(kPrefix, kA, kPool, member_id(2)),
                                      marker_key(kPrefix)}));
  EXPECT_EQ(plan.ops[0].value, lb_shell_to_json(after.loadbalancers[0]));
  ASSERT_EQ(plan.compares.size(), 2u);
  EXPECT_EQ(plan.compares[0].key, lb_key(kPrefix, kA));
  EXPECT_EQ(plan.compares[0].mod_revision, 5);
  EXPECT_EQ(plan.compares[1].mod_revision, 0);  // no pool key yet
}

// etcd refuses a transaction of more than 128 ops: such a load balancer is one value, as before.
TEST(EtcdLayout, ALoadBalancerWhoseMembersDoNotFitInOneTransactionIsWrittenWhole) {
  const ApiLoadBalancer big = lb(kB, "b", 200);
  const WritePlan made = plan_write({}, with({big}), {}, kPrefix);
  ASSERT_EQ(made.ops.size(), 2u);
  EXPECT_EQ(made.ops[0].value, lb_to_json(big));
  EXPECT_EQ(puts_of(big, kPrefix).size(), 1u);

  ApiState after = with({big});
  after.loadbalancers.edit(0).pools[0].members.push_back(member(200));
  const WritePlan grown = plan_write(with({big}), after, {{lb_key(kPrefix, kB), 4}}, kPrefix);
  EXPECT_EQ(keys(grown.ops),
            (std::vector<std::string>{lb_key(kPrefix, kB), members_of_lb(kPrefix, kB),
                                      pools_of_lb(kPrefix, kB), marker_key(kPrefix)}));
  EXPECT_EQ(grown.ops[0].value, lb_to_json(after.loadbalancers[0]));
  // The pools' keys too: a node that wrote a member of it meanwhile makes this one lose.
  ASSERT_EQ(grown.compares.size(), 2u);
  EXPECT_EQ(grown.compares[1].key, pool_key(kPrefix, kB, kPool));
}

// vigil before members had keys reads a load balancer as the state file's loader does: it refuses
// one without its members, and keeps its last good version, rather than empty its pools.
TEST(EtcdLayout, AnOlderReaderRefusesALoadBalancerWrittenWithoutItsMembers) {
  const std::string shell = lb_shell_to_json(lb(kA, "a", 2));
  auto old = state_from_json(R"({"version": 1, "loadbalancers": [)" + shell + "]}");
  ASSERT_FALSE(old);
  EXPECT_NE(old.error().message.find("members_apart"), std::string::npos) << old.error().message;
  auto now = lb_from_json(shell);
  ASSERT_TRUE(now) << now.error().message;
  EXPECT_EQ(*now, lb(kA, "a"));
}

TEST(EtcdLayout, AWriteThatChangesNoLoadBalancerWritesNothing) {
  const ApiState before = with({lb(kA, "a", 1)});
  ApiState after = before;
  after.member_overrides.insert_or_assign("m", model::AdminOverride{});
  EXPECT_TRUE(
      plan_write(before, after, known_as_written(before.loadbalancers[0]), kPrefix).ops.empty());
}

TEST(EtcdLayout, ACommittedWriteIsWhatTheNodeKnowsEtcdHolds) {
  Revisions r = known_as_written(lb(kA, "a", 2));
  r[lb_key(kPrefix, kB)] = 3;
  note_committed({{.kind = Kind::kPut, .key = lb_key(kPrefix, kB)},
                  {.kind = Kind::kDelete, .key = pool_key(kPrefix, kA, kPool)},
                  {.kind = Kind::kDeletePrefix, .key = members_of_lb(kPrefix, kA)}},
                 9, r);
  EXPECT_EQ(r, (Revisions{{lb_key(kPrefix, kA), 7}, {lb_key(kPrefix, kB), 9}}));
}

}  // namespace
}  // namespace vigil::admin
