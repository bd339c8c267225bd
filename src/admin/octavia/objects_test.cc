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
  EXPECT_NE(copy.find_lb("lb-1"), nullptr);
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

}  // namespace
}  // namespace vigil::admin
