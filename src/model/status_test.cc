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
      {.description = "empty: no servers is no failure", .members = {}, .expected = S::kOnline},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(pool_status(c.members), c.expected) << c.description;
  }
}

TEST(ListenerStatus, IsTheFrontendsNotThePools) {
  EXPECT_EQ(listener_status({}), S::kOnline);  // with or without a pool
  EXPECT_EQ(listener_status({.full = true}), S::kDegraded);
  EXPECT_EQ(listener_status({.bound = false, .full = true}), S::kError);
  EXPECT_EQ(listener_status({.enabled = false, .bound = false}), S::kOffline);
}

TEST(LoadBalancerStatus, FollowsTheAmphoraDriver) {
  struct Case {
    const char* description;
    bool enabled = true;
    std::vector<S> listeners;
    std::vector<S> pools;
    S expected;
  };
  const Case cases[] = {
      {.description = "nothing yet", .expected = S::kOnline},
      {.description = "all online",
       .listeners = {S::kOnline, S::kOnline},
       .pools = {S::kOnline},
       .expected = S::kOnline},
      {.description = "a pool in error is the load balancer's error",
       .listeners = {S::kOnline, S::kOnline},
       .pools = {S::kOnline, S::kError},
       .expected = S::kError},
      {.description = "error beats degraded",
       .listeners = {S::kDegraded},
       .pools = {S::kDegraded, S::kError},
       .expected = S::kError},
      {.description = "a degraded pool",
       .listeners = {S::kOnline},
       .pools = {S::kDegraded},
       .expected = S::kDegraded},
      {.description = "a full listener",
       .listeners = {S::kDegraded, S::kOnline},
       .pools = {S::kOnline},
       .expected = S::kDegraded},
      {.description = "a listener that cannot listen",
       .listeners = {S::kError},
       .expected = S::kDegraded},
      {.description = "a disabled listener does not count",
       .listeners = {S::kOffline, S::kOnline},
       .expected = S::kOnline},
      {.description = "disabled", .enabled = false, .pools = {S::kError}, .expected = S::kOffline},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(
        load_balancer_status({.enabled = c.enabled, .listeners = c.listeners, .pools = c.pools}),
        c.expected)
        << c.description;
  }
}

TEST(StatusNames, AreOctavias) {
  EXPECT_EQ(to_string(S::kNoMonitor), "NO_MONITOR");
  EXPECT_EQ(to_string(S::kDraining), "DRAINING");
  EXPECT_EQ(to_string(S::kDegraded), "DEGRADED");
}

}  // namespace
}  // namespace vigil::model
