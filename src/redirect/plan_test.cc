// decide() and nft_script(): which listeners get a redirect and why, and the script that programs
// them.
#include "redirect/plan.h"

#include <gtest/gtest.h>

namespace vigil::redirect {
namespace {

const model::RedirectFrom kVip{.address = "192.0.2.10", .port = 6443};
const model::RedirectFrom kVip6{.address = "2001:db8::10", .port = 6443};

ListenerFacts serving(size_t usable) {
  return {.listener_id = "l1",
          .listener = "api",
          .from = kVip,
          .serving = true,
          .port = 9445,
          .pool = "masters",
          .usable = usable};
}

TEST(Decide, EachCase) {
  ListenerFacts unbound = serving(3);
  unbound.serving = false;
  unbound.not_serving = "cannot bind :9445: Address already in use";
  ListenerFacts no_pool = serving(0);
  no_pool.pool = "";
  ListenerFacts no_port = serving(3);
  no_port.port = 0;
  struct Case {
    const char* description;
    ListenerFacts input;
    bool wanted;
    std::string why;
  };
  const Case cases[] = {
      {.description = "serving, three members",
       .input = serving(3),
       .wanted = true,
       .why = "3 usable members in pool masters"},
      {.description = "serving, one member",
       .input = serving(1),
       .wanted = true,
       .why = "1 usable member in pool masters"},
      {.description = "no usable member",
       .input = serving(0),
       .wanted = false,
       .why = "no usable member in pool masters"},
      {.description = "not serving, with members",
       .input = unbound,
       .wanted = false,
       .why = "listener not serving: cannot bind :9445: Address already in use"},
      {.description = "no pool", .input = no_pool, .wanted = false, .why = "listener has no pool"},
      {.description = "no port yet",
       .input = no_port,
       .wanted = false,
       .why = "listener has no port yet"},
  };
  for (const Case& c : cases) {
    const Plan plan = decide(std::span(&c.input, 1));
    ASSERT_EQ(plan.listeners.size(), 1u) << c.description;
    EXPECT_EQ(plan.listeners[0].wanted, c.wanted) << c.description;
    EXPECT_EQ(plan.listeners[0].why, c.why) << c.description;
    EXPECT_EQ(plan.listeners[0].from, kVip) << c.description;
    if (c.wanted) {
      EXPECT_EQ(plan.rules, (std::vector<Rule>{{.from = kVip, .to_port = 9445}})) << c.description;
    } else {
      EXPECT_TRUE(plan.rules.empty()) << c.description;
    }
  }
}

TEST(Decide, NoListenerNoRule) {
  const Plan plan = decide({});
  EXPECT_TRUE(plan.rules.empty());
  EXPECT_TRUE(plan.listeners.empty());
}

TEST(Decide, ListenersAreIndependent) {
  ListenerFacts v6 = serving(0);
  v6.listener_id = "l2";
  v6.from = kVip6;
  v6.port = 9446;
  ListenerFacts v4 = serving(2);
  const std::vector<ListenerFacts> facts{v4, v6};
  const Plan plan = decide(facts);
  EXPECT_EQ(plan.rules, (std::vector<Rule>{{.from = kVip, .to_port = 9445}}));
  ASSERT_EQ(plan.listeners.size(), 2u);
  EXPECT_TRUE(plan.listeners[0].wanted);
  EXPECT_FALSE(plan.listeners[1].wanted);
}

// The shell programs only when the plan changes: the same facts give an equal plan.
TEST(Decide, SameFactsSamePlan) {
  const ListenerFacts f = serving(3);
  EXPECT_EQ(decide(std::span(&f, 1)), decide(std::span(&f, 1)));
  const ListenerFacts g = serving(2);
  EXPECT_EQ(decide(std::span(&f, 1)).rules, decide(std::span(&g, 1)).rules);
  EXPECT_NE(decide(std::span(&f, 1)), decide(std::span(&g, 1)));  // the reason's count
}

TEST(ToString, BothFamilies) {
  EXPECT_EQ(to_string(kVip), "192.0.2.10:6443");
  EXPECT_EQ(to_string(kVip6), "[2001:db8::10]:6443");
}

TEST(NftScript, OwnedTableBothHooksBothFamilies) {
  const std::vector<Rule> rules{{.from = kVip, .to_port = 9445}, {.from = kVip6, .to_port = 9446}};
  EXPECT_EQ(nft_script("vigil_42", rules),
            "add table inet vigil_42 { flags owner; }\n"
            "flush table inet vigil_42\n"
            "add chain inet vigil_42 prerouting { type nat hook prerouting priority -100; "
            "policy accept; }\n"
            "add chain inet vigil_42 output { type nat hook output priority -100; policy accept; "
            "}\n"
            "add rule inet vigil_42 prerouting ip daddr 192.0.2.10 tcp dport 6443 redirect to "
            ":9445\n"
            "add rule inet vigil_42 output ip daddr 192.0.2.10 tcp dport 6443 redirect to :9445\n"
            "add rule inet vigil_42 prerouting ip6 daddr 2001:db8::10 tcp dport 6443 redirect to "
            ":9446\n"
            "add rule inet vigil_42 output ip6 daddr 2001:db8::10 tcp dport 6443 redirect to "
            ":9446\n");
}

TEST(NftScript, NoRuleNoTable) {
  EXPECT_EQ(nft_script("vigil_42", {}), "delete table inet vigil_42\n");
}

}  // namespace
}  // namespace vigil::redirect
