// A listener's traffic fields through the API: allowed_cidrs (Octavia's CidrType, its VIP check)
// and the timeouts' range, on ApiState values without any server.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "admin/octavia/local_network.h"
#include "admin/octavia/object_store.h"
#include "admin/octavia/ops.h"
#include "admin/octavia/store_json.h"

namespace vigil::admin {
namespace {

class ListenerFieldsTest : public ::testing::Test {
 protected:
  OpContext context() {
    return OpContext{
        .now = "2026-12-05T06:00:00",
        .new_id = [this] { return fmt::format("00000000-0000-4000-8000-{:012}", ++ids_); },
        .is_local_address = is_local_address,
    };
  }
  std::string lb(std::string_view vip = "127.0.0.1") {
    return *create_loadbalancer(
        s_, fmt::format(R"({{"loadbalancer": {{"vip_address": "{}"}}}})", vip), context());
  }
  ApiResult<std::string> listener(const std::string& lb_id, std::string_view extra) {
    return create_listener(s_,
                           fmt::format(R"({{"listener": {{"loadbalancer_id": "{}",
                                "protocol": "TCP", "protocol_port": 16443 {}}}}})",
                                       lb_id, extra),
                           context());
  }
  const ApiListener& only_listener() const { return s_.loadbalancers.at(0).listeners.at(0); }

  ApiState s_;
  int ids_ = 0;
};

TEST_F(ListenerFieldsTest, AllowedCidrsAreKeptInOctaviasForm) {
  const std::string lb_id = lb();
  ASSERT_TRUE(listener(lb_id, R"(, "allowed_cidrs": ["10.1.2.3/8", "127.0.0.1",
                                  "10.0.0.0/8", "192.168.0.0/16"])"));
  EXPECT_EQ(only_listener().allowed_cidrs,
            (std::vector<std::string>{"10.0.0.0/8", "127.0.0.1/32", "192.168.0.0/16"}));
  const std::string id = only_listener().id;
  ASSERT_TRUE(
      update_listener(s_, id, R"({"listener": {"allowed_cidrs": ["127.0.0.0/8"]}})", context()));
  EXPECT_EQ(only_listener().allowed_cidrs, (std::vector<std::string>{"127.0.0.0/8"}));
  ASSERT_TRUE(update_listener(s_, id, R"({"listener": {"name": "api"}})", context()));
  EXPECT_EQ(only_listener().allowed_cidrs.size(), 1u);  // not named: unchanged
  ASSERT_TRUE(update_listener(s_, id, R"({"listener": {"allowed_cidrs": null}})", context()));
  EXPECT_TRUE(only_listener().allowed_cidrs.empty());
  ASSERT_TRUE(update_listener(s_, id, R"({"listener": {"allowed_cidrs": []}})", context()));
  EXPECT_TRUE(only_listener().allowed_cidrs.empty());
}

TEST_F(ListenerFieldsTest, AllowedCidrsSurviveTheStateFile) {
  ASSERT_TRUE(listener(lb(), R"(, "allowed_cidrs": ["127.0.0.1/32", "10.0.0.0/8"])"));
  auto back = state_from_json(state_to_json(s_));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->loadbalancers.at(0).listeners.at(0).allowed_cidrs,
            (std::vector<std::string>{"127.0.0.1/32", "10.0.0.0/8"}));
}

TEST_F(ListenerFieldsTest, BadAllowedCidrsAreRefusedAndNothingIsMade) {
  const std::string lb_id = lb();
  std::string many;
  for (int i = 0; i < 1001; ++i) {
    many += fmt::format("{}\"10.{}.{}.0/24\"", i ? "," : "", i / 256, i % 256);
  }
  struct Case {
    std::string what, extra, message;
  };
  const Case cases[] = {
      {"malformed", R"(, "allowed_cidrs": ["10.0.0.0/33"])",
       "Invalid input for field/attribute allowed_cidrs. Value: '10.0.0.0/33'. Value should be "
       "IPv4 or IPv6 CIDR format"},
      {"a name", R"(, "allowed_cidrs": ["10.0.0.0/8", "lb.example"])", "Value: 'lb.example'"},
      {"a string, not a list", R"(, "allowed_cidrs": "10.0.0.0/8")",
       "allowed_cidrs. Value: '10.0.0.0/8'. Expected a list of strings"},
      {"a number in the list", R"(, "allowed_cidrs": [10])", "Expected a list of strings"},
      {"empty text", R"(, "allowed_cidrs": [""])", "Value: ''. Value should be IPv4 or IPv6"},
      {"over the limit", ", \"allowed_cidrs\": [" + many + "]",
       "1001 networks; vigil takes at most 1000"},
      {"IPv6 on an IPv4 VIP", R"(, "allowed_cidrs": ["fd00::/8"])",
       "Validation failure: CIDR fd00::/8 IP version incompatible with VIP 127.0.0.1 IP version."},
  };
  for (const Case& c : cases) {
    auto r = listener(lb_id, c.extra);
    ASSERT_FALSE(r) << c.what;
    EXPECT_EQ(r.error().status, 400) << c.what;
    EXPECT_NE(r.error().message.find(c.message), std::string::npos)
        << c.what << ": " << r.error().message;
  }
  EXPECT_TRUE(s_.loadbalancers.at(0).listeners.empty());
}

TEST_F(ListenerFieldsTest, ABadUpdateLeavesTheListenerAsItWas) {
  ASSERT_TRUE(listener(lb(), R"(, "allowed_cidrs": ["127.0.0.1"])"));
  const ApiListener before = only_listener();
  for (std::string_view body : {R"({"listener": {"allowed_cidrs": ["::1"], "name": "x"}})",
                                R"({"listener": {"name": "x", "allowed_cidrs": ["nope"]}})"}) {
    ApiState copy = s_;  // as a write does: the store commits the copy only when it succeeds
    auto r = update_listener(copy, before.id, body, context());
    ASSERT_FALSE(r) << body;
    EXPECT_EQ(r.error().status, 400);
  }
  EXPECT_EQ(only_listener(), before);
}

TEST_F(ListenerFieldsTest, IPv6LoadBalancersTakeIPv6Networks) {
  const std::string lb_id = lb("::1");
  ASSERT_TRUE(listener(lb_id, R"(, "allowed_cidrs": ["::1", "fd00::1/8"])"));
  EXPECT_EQ(only_listener().allowed_cidrs, (std::vector<std::string>{"::1/128", "fd00::/8"}));
  auto v4 = update_listener(s_, only_listener().id,
                            R"({"listener": {"allowed_cidrs": ["127.0.0.1"]}})", context());
  ASSERT_FALSE(v4);
  EXPECT_NE(v4.error().message.find("IP version incompatible with VIP ::1"), std::string::npos);
}

TEST_F(ListenerFieldsTest, TimeoutsReachOctaviasTwentyFourDays) {
  const std::string lb_id = lb();
  ASSERT_TRUE(listener(lb_id, R"(, "timeout_member_data": 2073600000)"));
  EXPECT_EQ(only_listener().timeout_member_data, 2073600000);
  auto over = update_listener(s_, only_listener().id,
                              R"({"listener": {"timeout_client_data": 2073600001}})", context());
  ASSERT_FALSE(over);
  EXPECT_NE(over.error().message.find("lower or equal to 2073600000"), std::string::npos)
      << over.error().message;
}

TEST_F(ListenerFieldsTest, TheTimeoutsReachTheListenerThatRuns) {
  using namespace std::chrono_literals;
  ASSERT_TRUE(listener(lb(), R"(, "timeout_member_data": 2000,
                                  "allowed_cidrs": ["127.0.0.1"])"));
  model::Listener l = config_of(s_.loadbalancers.at(0)).listeners.at(0);
  EXPECT_EQ(l.member_idle_timeout, 2s);
  EXPECT_EQ(l.idle_timeout, 1h);  // timeout_client_data unset: vigil's
  EXPECT_EQ(l.allowed_cidrs, (std::vector<std::string>{"127.0.0.1/32"}));
  ASSERT_TRUE(update_listener(s_, only_listener().id,
                              R"({"listener": {"timeout_member_data": null}})", context()));
  l = config_of(s_.loadbalancers.at(0)).listeners.at(0);
  EXPECT_EQ(l.member_idle_timeout, 0s);
}

TEST_F(ListenerFieldsTest, APoolFailsOpenUnlessItsTagSaysOtherwise) {
  const std::string lb_id = lb();
  ASSERT_TRUE(listener(lb_id, ""));
  auto pool = create_pool(s_,
                          fmt::format(R"({{"pool": {{"loadbalancer_id": "{}", "protocol": "TCP",
                                "lb_algorithm": "ROUND_ROBIN"}}}})",
                                      lb_id),
                          context());
  ASSERT_TRUE(pool);
  EXPECT_TRUE(config_of(s_.loadbalancers.at(0)).pools.at(0).fail_open);
  ASSERT_TRUE(update_pool(s_, *pool, R"({"pool": {"tags": ["vigil:fail_closed"]}})", context()));
  EXPECT_FALSE(config_of(s_.loadbalancers.at(0)).pools.at(0).fail_open);
}

}  // namespace
}  // namespace vigil::admin
