#include "daemon/rotation.h"

#include <gtest/gtest.h>

#include "testing/manual_clock.h"

namespace vigil::daemon {
namespace {

using model::Health;

RotationInput up() { return {.has_monitor = true, .health = Health::kUp}; }
RotationInput down() { return {.has_monitor = true, .health = Health::kDown}; }
RotationInput unchecked() { return {.has_monitor = true, .health = Health::kUnchecked}; }
RotationInput backup(RotationInput m) {
  m.backup = true;
  return m;
}

TEST(Rotation, Rules) {
  struct Case {
    const char* description;
    std::vector<RotationInput> members;
    bool fail_open;
    std::vector<size_t> expected;
    bool expect_fail_open;
  };
  const Case cases[] = {
      {.description = "healthy primaries only",
       .members = {up(), down(), up()},
       .fail_open = true,
       .expected = {0, 2},
       .expect_fail_open = false},
      {.description = "nothing checked yet: route to all",
       .members = {unchecked(), unchecked()},
       .fail_open = false,
       .expected = {0, 1},
       .expect_fail_open = false},
      {.description = "once one is checked, unchecked ones wait",
       .members = {up(), unchecked()},
       .fail_open = true,
       .expected = {0},
       .expect_fail_open = false},
      {.description = "backup only when primaries are gone",
       .members = {down(), backup(up()), down()},
       .fail_open = true,
       .expected = {1},
       .expect_fail_open = false},
      {.description = "backup idle while a primary is up",
       .members = {up(), backup(up())},
       .fail_open = true,
       .expected = {0},
       .expect_fail_open = false},
      {.description = "all down fails open",
       .members = {down(), down()},
       .fail_open = true,
       .expected = {0, 1},
       .expect_fail_open = true},
      {.description = "all down, fail_open off: none",
       .members = {down(), down()},
       .fail_open = false,
       .expected = {},
       .expect_fail_open = false},
      {.description = "no monitor routes",
       .members = {{}, {}},
       .fail_open = false,
       .expected = {0, 1},
       .expect_fail_open = false},
      {.description = "weight 0 and disabled never",
       .members = {{.weight = 0}, {.enabled = false}, {}},
       .fail_open = true,
       .expected = {2},
       .expect_fail_open = false},
      {.description = "fail open skips disabled and drained",
       .members = {{.enabled = false, .has_monitor = true}, {.weight = 0}, down()},
       .fail_open = true,
       .expected = {2},
       .expect_fail_open = true},
      {.description = "passive failure takes a member out at once",
       .members = {{.has_monitor = true, .health = Health::kUp, .passive_out = true}, up()},
       .fail_open = true,
       .expected = {1},
       .expect_fail_open = false},
      {.description = "draining takes no new connections",
       .members = {{.has_monitor = true, .health = Health::kUp, .draining = true}, up()},
       .fail_open = true,
       .expected = {1},
       .expect_fail_open = false},
      {.description = "all draining (an etcd blip everywhere) fails open",
       .members = {{.has_monitor = true, .health = Health::kUp, .draining = true},
                   {.has_monitor = true, .health = Health::kUp, .draining = true}},
       .fail_open = true,
       .expected = {0, 1},
       .expect_fail_open = true},
      {.description = "fail open leaves out a member that refuses or does not answer",
       .members = {{.has_monitor = true, .health = Health::kDown, .takes_connections = false},
                   down(),
                   {.has_monitor = true, .health = Health::kDown, .passive_out = true}},
       .fail_open = true,
       .expected = {1},
       .expect_fail_open = true},
      {.description = "fail open with no member taking connections: none",
       .members = {{.has_monitor = true, .health = Health::kDown, .takes_connections = false},
                   {.has_monitor = true, .health = Health::kDown, .passive_out = true}},
       .fail_open = true,
       .expected = {},
       .expect_fail_open = false},
      {.description = "every check timing out at once (checks under load) still fails open",
       .members = {{.has_monitor = true,
                    .health = Health::kDown,
                    .takes_connections = false,
                    .timed_out = true},
                   {.has_monitor = true,
                    .health = Health::kDown,
                    .takes_connections = false,
                    .timed_out = true}},
       .fail_open = true,
       .expected = {0, 1},
       .expect_fail_open = true},
      {.description = "a timed-out member waits while another takes connections",
       .members = {{.has_monitor = true,
                    .health = Health::kDown,
                    .takes_connections = false,
                    .timed_out = true},
                   down()},
       .fail_open = true,
       .expected = {1},
       .expect_fail_open = true},
      {.description = "timed out, refused and passively out: only the timed-out one",
       .members = {{.has_monitor = true,
                    .health = Health::kDown,
                    .takes_connections = false,
                    .timed_out = true},
                   {.has_monitor = true, .health = Health::kDown, .takes_connections = false},
                   {.has_monitor = true,
                    .health = Health::kDown,
                    .passive_out = true,
                    .takes_connections = false,
                    .timed_out = true}},
       .fail_open = true,
       .expected = {0},
       .expect_fail_open = true},
      {.description = "unresolved never",
       .members = {{.resolved = false}, {}},
       .fail_open = true,
       .expected = {1},
       .expect_fail_open = false},
  };
  for (const auto& c : cases) {
    const Rotation r = choose_rotation(c.members, c.fail_open);
    EXPECT_EQ(r.members, c.expected) << c.description;
    EXPECT_EQ(r.fail_open, c.expect_fail_open) << c.description;
  }
}

TEST(RampedWeight, SlowStartRampsLinearlyOnAFakeClock) {
  using namespace std::chrono_literals;
  vigil::testing::ManualClock clock;
  const TimePoint back = clock.now();
  struct Case {
    Duration after;
    int expected;
  };
  const Case cases[] = {
      {.after = 0s, .expected = 1},  // never zero: a recovered member gets a trickle at once
      {.after = 15s, .expected = 2 * kWeightScale / 4},
      {.after = 30s, .expected = 2 * kWeightScale / 2},
      {.after = 59s, .expected = static_cast<int>(2 * kWeightScale * 59.0 / 60)},
      {.after = 60s, .expected = 2 * kWeightScale},
      {.after = 1h, .expected = 2 * kWeightScale},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ramped_weight(2, 60s, back, back + c.after), c.expected)
        << std::chrono::duration_cast<std::chrono::seconds>(c.after).count() << "s";
  }
  EXPECT_EQ(ramped_weight(2, 0s, back, back), 2 * kWeightScale) << "slow start off";
  EXPECT_EQ(ramped_weight(2, 60s, TimePoint{}, back), 2 * kWeightScale) << "never was down";
}

}  // namespace
}  // namespace vigil::daemon
