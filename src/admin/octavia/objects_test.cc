// The API's state is copied on write: a copy shares every load balancer until a lookup to change
// one (or edit()) makes that one its own.
#include "admin/octavia/objects.h"

#include <gtest/gtest.h>

namespace vigil::admin {
namespace {

ApiState two_load_balancers() {
  ApiState s;
  for (const char* id : {"lb-1", "lb-2"}) {
    ApiLoadBalancer lb;
    lb.id = id;
    ApiPool pool;
    pool.id = std::string(id) + "-pool";
    ApiMember m;
    m.id = std::string(id) + "-member";
    m.weight = 1;
    pool.members.push_back(m);
    lb.pools.push_back(pool);
    s.loadbalancers.push_back(lb);
  }
  return s;
}

TEST(ApiStateCopy, AChangeOfACopyIsTheCopysAloneAndTheOthersStayShared) {
  const ApiState original = two_load_balancers();
  ApiState copy = original;
  EXPECT_TRUE(copy.loadbalancers.shares(0, original.loadbalancers, 0));
  EXPECT_TRUE(copy.loadbalancers.shares(1, original.loadbalancers, 1));

  auto found = copy.find_member("lb-2-member");
  ASSERT_TRUE(found);
  found.item->weight = 9;
  EXPECT_EQ(original.loadbalancers[1].pools[0].members[0].weight, 1) << "the original unchanged";
  EXPECT_EQ(copy.loadbalancers[1].pools[0].members[0].weight, 9);
  EXPECT_FALSE(copy.loadbalancers.shares(1, original.loadbalancers, 1));
  EXPECT_TRUE(copy.loadbalancers.shares(0, original.loadbalancers, 0)) << "not copied";

  // Once its own, it is not copied again: the pointers an op holds stay valid.
  EXPECT_EQ(copy.find_pool("lb-2-pool").lb, found.lb);
  EXPECT_EQ(&copy.loadbalancers.edit(1), found.lb);
}

TEST(ApiStateCopy, ConstLookupsCopyNothing) {
  const ApiState original = two_load_balancers();
  const ApiState copy = original;
  ASSERT_NE(copy.holder("lb-1-member"), nullptr);
  EXPECT_EQ(copy.holder("lb-1-member")->id, "lb-1");
  EXPECT_EQ(copy.holder("lb-2-pool")->id, "lb-2");
  EXPECT_EQ(copy.holder("lb-2")->id, "lb-2");
  EXPECT_EQ(copy.holder("nothing"), nullptr);
  EXPECT_EQ(copy.holder("lb-2-pool", "pools")->id, "lb-2") << "of the kind named";
  EXPECT_EQ(copy.holder("lb-2-pool", "members"), nullptr) << "of no other kind";
  EXPECT_EQ(copy.holder("lb-1-member", "members")->id, "lb-1");
  EXPECT_TRUE(copy.contains("lb-1-pool"));
  EXPECT_NE(copy.lb("lb-1"), nullptr);
  ASSERT_NE(copy.member("lb-2-member"), nullptr);
  EXPECT_EQ(copy.member("lb-2-member")->weight, 1);
  EXPECT_EQ(copy.pool("lb-1-pool"), &original.loadbalancers[0].pools[0]) << "the shared object";
  EXPECT_EQ(copy.listener("lb-1-pool"), nullptr);
  EXPECT_EQ(copy.monitor("lb-1-pool"), nullptr);
  EXPECT_TRUE(copy.loadbalancers.shares(0, original.loadbalancers, 0));
  EXPECT_TRUE(copy.loadbalancers.shares(1, original.loadbalancers, 1));
}

TEST(ApiStateCopy, ALookupThatFindsNothingCopiesNothing) {
  const ApiState original = two_load_balancers();
  ApiState copy = original;
  EXPECT_FALSE(copy.find_member("nothing"));
  EXPECT_FALSE(copy.find_monitor("lb-1-member")) << "a member is no monitor";
  EXPECT_TRUE(copy.loadbalancers.shares(0, original.loadbalancers, 0));
  EXPECT_TRUE(copy.loadbalancers.shares(1, original.loadbalancers, 1));
}

TEST(ApiIndex, FindsWhatTheWalkingLookupsFind) {
  ApiState s = two_load_balancers();
  s.loadbalancers.edit(1).pools[0].healthmonitor = ApiHealthMonitor{};
  s.loadbalancers.edit(1).pools[0].healthmonitor->id = "lb-2-monitor";
  ApiListener l;
  l.id = "lb-1-listener";
  s.loadbalancers.edit(0).listeners.push_back(l);
  const ApiIndex index(s);
  for (const char* id : {"lb-1", "lb-2", "lb-1-listener", "lb-1-pool", "lb-2-pool", "lb-1-member",
                         "lb-2-member", "lb-2-monitor", "nothing"}) {
    EXPECT_EQ(index.lb(id), s.lb(id)) << id;
    EXPECT_EQ(index.listener(id), s.listener(id)) << id;
    EXPECT_EQ(index.pool(id), s.pool(id)) << id;
    EXPECT_EQ(index.member(id), s.member(id)) << id;
    EXPECT_EQ(index.monitor(id), s.monitor(id)) << id;
  }
  EXPECT_NE(index.monitor("lb-2-monitor"), nullptr);
  EXPECT_NE(index.listener("lb-1-listener"), nullptr);
}

}  // namespace
}  // namespace vigil::admin
