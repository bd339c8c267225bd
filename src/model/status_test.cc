#include "model/status.h"

#include <gtest/gtest.h>

#include <vector>

namespace vigil::model {
namespace {

using S = OperatingStatus;

TEST(MemberStatus, FollowsOctavia) {
  struct Case {
    const char* description;
    MemberFacts facts;
    S expected;
  };
  const Case cases[] = {
      {.description = "up",
       .facts = {.has_monitor = true, .health = Health::kUp},
       .expected = S::kOnline},
      {.description = "down",
       .facts = {.has_monitor = true, .health = Health::kDown},
       .expected = S::kError},
      {.description = "no result yet", .facts = {.has_monitor = true}, .expected = S::kOffline},
      {.description = "no monitor",
       .facts = {.has_monitor = false, .health = Health::kDown},
       .expected = S::kNoMonitor},
      {.description = "disabled wins over all",
       .facts = {.enabled = false, .weight = 0, .has_monitor = true, .health = Health::kDown},
       .expected = S::kOffline},
      {.description = "weight 0 drains",
       .facts = {.weight = 0, .has_monitor = true, .health = Health::kUp},
       .expected = S::kDraining},
      {.description = "weight 0 without monitor drains",
       .facts = {.weight = 0},
       .expected = S::kDraining},
      {.description = "draining while down",
       .facts = {.draining = true, .has_monitor = true, .health = Health::kDown},
       .expected = S::kDraining},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(member_status(c.facts), c.expected) << c.description;
  }
}

TEST(PoolStatus, AggregatesMembers) {
  struct Case {
    const char* description;
    std::vector<S> members;
    S expected;
  };
  const Case cases[] = {
      {.description = "all online", .members = {S::kOnline, S::kOnline}, .expected = S::kOnline},
      {.description = "one error", .members = {S::kOnline, S::kError}, .expected = S::kDegraded},
      {.description = "all error", .members = {S::kError, S::kError}, .expected = S::kError},
      {.description = "no monitor serves", .members = {S::kNoMonitor}, .expected = S::kOnline},
      {.description = "disabled does not degrade",
       .members = {S::kOnline, S::kOffline},
       .expected = S::kOnline},
      {.description = "only draining", .members = {S::kDraining}, .expected = S::kError},
      {.description = "only unchecked",
       .members = {S::kOffline, S::kOffline},
       .expected = S::kError},
      {.description = "empty", .members = {}, .expected = S::kError},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(pool_status(c.members), c.expected) << c.description;
  }
}

TEST(AggregateStatus, ListenersAndLoadBalancers) {
  EXPECT_EQ(aggregate_status(std::vector<S>{}), S::kOnline);
  EXPECT_EQ(aggregate_status(std::vector<S>{S::kOnline, S::kOnline}), S::kOnline);
  EXPECT_EQ(aggregate_status(std::vector<S>{S::kOnline, S::kError}), S::kDegraded);
  EXPECT_EQ(aggregate_status(std::vector<S>{S::kDegraded}), S::kDegraded);
  EXPECT_EQ(aggregate_status(std::vector<S>{S::kError, S::kError}), S::kError);
}

TEST(StatusNames, AreOctavias) {
  EXPECT_EQ(to_string(S::kNoMonitor), "NO_MONITOR");
  EXPECT_EQ(to_string(S::kDraining), "DRAINING");
  EXPECT_EQ(to_string(S::kDegraded), "DEGRADED");
}

}  // namespace
}  // namespace vigil::model
