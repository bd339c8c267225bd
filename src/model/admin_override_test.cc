#include "model/admin_override.h"

#include <gtest/gtest.h>

namespace vigil::model {
namespace {

using namespace std::chrono_literals;

const WallTime kNow = WallTime{} + 1h;

struct Case {
  const char* description;
  std::optional<AdminOverride> current;
  std::optional<AdminState> state;
  std::optional<int> weight;
  std::optional<AdminOverride> expected;  // set_at and by aside
};

TEST(AdminOverride, ARequestMergesIntoTheCurrentOverride) {
  const AdminOverride drain{.state = AdminState::kDrain};
  const AdminOverride drain_w3{.state = AdminState::kDrain, .weight = 3};
  const Case cases[] = {
      {.description = "drain from nothing", .state = AdminState::kDrain, .expected = drain},
      {.description = "a weight alone", .weight = 0, .expected = AdminOverride{.weight = 0}},
      {.description = "a weight keeps the state",
       .current = drain,
       .weight = 3,
       .expected = drain_w3},
      {.description = "maint keeps the weight",
       .current = drain_w3,
       .state = AdminState::kMaint,
       .expected = AdminOverride{.state = AdminState::kMaint, .weight = 3}},
      {.description = "ready clears everything", .current = drain_w3, .state = AdminState::kReady},
      {.description = "ready with a weight leaves the weight",
       .current = drain_w3,
       .state = AdminState::kReady,
       .weight = 5,
       .expected = AdminOverride{.weight = 5}},
      {.description = "ready from nothing is nothing", .state = AdminState::kReady},
  };
  for (const Case& c : cases) {
    auto got = next_override(c.current, c.state, c.weight, kNow, "API");
    ASSERT_EQ(got.has_value(), c.expected.has_value()) << c.description;
    if (!got) continue;
    EXPECT_EQ(got->set_at, kNow) << c.description;
    EXPECT_EQ(got->by, "API") << c.description;
    got->set_at = {};
    got->by.clear();
    EXPECT_EQ(*got, *c.expected) << c.description;
  }
}

TEST(AdminOverride, DescribesItselfInAFewWords) {
  EXPECT_EQ(describe({.state = AdminState::kDrain}), "drain");
  EXPECT_EQ(describe({.state = AdminState::kMaint, .weight = 3}), "maint, weight 3");
  EXPECT_EQ(describe({.weight = 0}), "weight 0");
}

}  // namespace
}  // namespace vigil::model
