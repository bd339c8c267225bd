// The fully-populated load balancer create (populated.h): the whole tree made as the single
// creates make each object, pools linked by name or id, and Octavia's refusals, on ApiState
// values without any server.
#include "admin/octavia/populated.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "admin/octavia/local_network.h"

namespace vigil::admin {
namespace {

constexpr std::string_view kLb = "11111111-1111-4111-8111-111111111111";
constexpr std::string_view kPool = "22222222-2222-4222-8222-222222222222";

class PopulatedTest : public ::testing::Test {
 protected:
  OpContext context() {
    return OpContext{
        .now = "2026-12-05T06:00:00",
        .new_id = [this] { return fmt::format("00000000-0000-4000-8000-{:012}", ++ids_); },
        .is_local_address = is_local_address,
        .taken = {{.address = "", .port = 6443, .owner = "listener api of /etc/vigil.yaml"}},
    };
  }
  ApiResult<std::string> create(std::string_view lb_fields) {
    return create_loadbalancer_tree(s_, fmt::format(R"({{"loadbalancer": {{{}}}}})", lb_fields),
                                    context());
  }

  ApiState s_;
  int ids_ = 0;
};

TEST_F(PopulatedTest, MakesTheWholeTreeLinkedByName) {
  auto id = create(R"("name": "k8s", "listeners": [{"protocol": "TCP", "protocol_port": 16443,
      "default_pool": {"name": "masters", "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN",
        "members": [{"address": "127.0.0.1", "protocol_port": 6443},
                    {"address": "127.0.0.2", "protocol_port": 6443, "weight": 3}],
        "healthmonitor": {"type": "TCP", "delay": 5, "timeout": 2, "max_retries": 2}}},
      {"protocol": "TCP", "protocol_port": 16444, "default_pool": {"name": "masters"}}])");
  ASSERT_TRUE(id) << id.error().message;
  ASSERT_EQ(s_.loadbalancers.size(), 1u);
  const ApiLoadBalancer& lb = s_.loadbalancers[0];
  EXPECT_EQ(lb.id, *id);
  EXPECT_EQ(lb.name, "k8s");
  ASSERT_EQ(lb.pools.size(), 1u);
  const ApiPool& p = lb.pools[0];
  EXPECT_EQ(p.name, "masters");
  ASSERT_EQ(p.members.size(), 2u);
  EXPECT_EQ(p.members[1].weight, 3);
  EXPECT_EQ(p.members[1].project_id, lb.project_id);
  ASSERT_TRUE(p.healthmonitor);
  EXPECT_EQ(p.healthmonitor->max_retries_down, 3);  // the single create's default
  ASSERT_EQ(lb.listeners.size(), 2u);
  EXPECT_EQ(lb.listeners[0].default_pool_id, p.id);
  EXPECT_EQ(lb.listeners[1].default_pool_id, p.id);
  EXPECT_EQ(lb.listeners[1].protocol_port, 16444);
}

// The provider agent's shape: Octavia's ids, the pools at the top, unnamed, linked by id.
TEST_F(PopulatedTest, TakesRequestedIdsAndPoolsLinkedById) {
  auto id = create(fmt::format(
      R"("id": "{}", "listeners": [{{"protocol": "TCP", "protocol_port": 16443,
          "default_pool_id": "{}"}}],
          "pools": [{{"id": "{}", "protocol": "TCP", "lb_algorithm": "SOURCE_IP"}},
                    {{"protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"}}])",
      kLb, kPool, kPool));
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(*id, kLb);
  const ApiLoadBalancer& lb = s_.loadbalancers.at(0);
  ASSERT_EQ(lb.pools.size(), 2u);
  EXPECT_EQ(lb.pools[0].id, kPool);
  EXPECT_EQ(lb.listeners.at(0).default_pool_id, kPool);
}

TEST_F(PopulatedTest, WithoutChildrenIsThePlainCreate) {
  auto id = create(R"("name": "plain", "listeners": [], "pools": null)");
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_TRUE(s_.loadbalancers.at(0).listeners.empty());
  EXPECT_TRUE(s_.loadbalancers.at(0).pools.empty());
}

TEST_F(PopulatedTest, RefusesWhatOctaviaRefuses) {
  struct Case {
    std::string description;
    std::string fields;
    int status;
    std::string message;
  };
  const Case cases[] = {
      {.description = "an unnamed default pool",
       .fields = R"("listeners": [{"protocol": "TCP", "protocol_port": 16443,
           "default_pool": {"protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"}}])",
       .status = 400,
       .message = "Pools must be named"},
      {.description = "two pools of one name",
       .fields = R"("pools": [{"name": "a", "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"},
                              {"name": "a", "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"}])",
       .status = 400,
       .message = "Pool names must be unique"},
      {.description = "a reference to no pool",
       .fields = R"("listeners": [{"protocol": "TCP", "protocol_port": 16443,
           "default_pool": {"name": "nowhere"}}])",
       .status = 400,
       .message = "Pool 'nowhere' was referenced"},
      {.description = "a nested object's own relation",
       .fields = R"("listeners": [{"protocol": "TCP", "protocol_port": 16443,
           "loadbalancer_id": "11111111-1111-4111-8111-111111111111"}])",
       .status = 400,
       .message = "Unknown attribute for argument load_balancer.loadbalancer.listeners[0]: "
                  "loadbalancer_id"},
      {.description = "listeners that are no list",
       .fields = R"("listeners": {"protocol": "TCP"})",
       .status = 400,
       .message = "listeners must be a list of objects"},
      {.description = "a member's field, as its single create refuses it",
       .fields = R"("pools": [{"name": "a", "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN",
           "members": [{"address": "127.0.0.1", "protocol_port": 0}]}])",
       .status = 400,
       .message = "protocol_port"},
      {.description = "the config file's port",
       .fields = R"("listeners": [{"protocol": "TCP", "protocol_port": 6443}])",
       .status = 409,
       .message = "is already used by listener api of /etc/vigil.yaml"},
      {.description = "two listeners on one port",
       .fields = R"("listeners": [{"protocol": "TCP", "protocol_port": 16443},
                                  {"protocol": "TCP", "protocol_port": 16443}])",
       .status = 409,
       .message = "already using protocol TCP and protocol_port 16443"},
  };
  for (const Case& c : cases) {
    ApiState before = s_;
    auto id = create(c.fields);
    ASSERT_FALSE(id) << c.description;
    EXPECT_EQ(id.error().status, c.status) << c.description << ": " << id.error().message;
    EXPECT_NE(id.error().message.find(c.message), std::string::npos)
        << c.description << ": " << id.error().message;
    s_ = before;  // the write's copy is dropped, as writes.cc drops it
  }
}

}  // namespace
}  // namespace vigil::admin
