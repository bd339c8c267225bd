#include "cli/health_track.h"

#include <gtest/gtest.h>

#include <vector>

namespace vigil::cli {
namespace {

using namespace std::chrono_literals;

constexpr TrackPolicy kPolicy{.fall = 2, .interval = 500ms, .retry = 100ms};

struct Case {
  const char* description;
  TrackState state;
  Sight sight;
  std::chrono::milliseconds held{0};
  TrackStep expected;
};

TEST(NextTrackStep, Table) {
  const std::vector<Case> cases = {
      {.description = "the first ready check writes 0 and holds a connection",
       .state = {},
       .sight = Sight::kReady,
       .expected =
           {.state = {.serving = true}, .write = true, .next = Next::kHold, .after = 500ms}},
      {.description = "ready again writes nothing and clears the failures",
       .state = {.serving = true, .failures = 1},
       .sight = Sight::kReady,
       .expected = {.state = {.serving = true}, .next = Next::kHold, .after = 500ms}},
      {.description = "one failed check (slow, 503) writes nothing and looks again soon",
       .state = {.serving = true},
       .sight = Sight::kNotReady,
       .expected = {.state = {.serving = true, .failures = 1}, .after = 100ms}},
      {.description = "a check whose connection broke (vigil dying): again at once",
       .state = {.serving = true},
       .sight = Sight::kBroken,
       .expected = {.state = {.serving = true, .failures = 1}, .after = 0ms}},
      {.description = "the second failed check in a row writes 1",
       .state = {.serving = true, .failures = 1},
       .sight = Sight::kNotReady,
       .expected = {.state = {.serving = false, .failures = 2}, .write = false, .after = 500ms}},
      {.description = "further failures write nothing more, at the interval's pace",
       .state = {.serving = false, .failures = 2},
       .sight = Sight::kNotReady,
       .expected = {.state = {.serving = false, .failures = 3}, .after = 500ms}},
      {.description = "before the first write, two failures write 1 too",
       .state = {.failures = 1},
       .sight = Sight::kNotReady,
       .expected = {.state = {.serving = false, .failures = 2}, .write = false, .after = 500ms}},
      {.description = "refused: no vigil listens, 1 at once",
       .state = {.serving = true},
       .sight = Sight::kGone,
       .expected = {.state = {.serving = false, .failures = 2}, .write = false, .after = 500ms}},
      {.description = "refused while the file already says 1",
       .state = {.serving = false, .failures = 2},
       .sight = Sight::kGone,
       .expected = {.state = {.serving = false, .failures = 2}, .after = 500ms}},
      {.description = "back after a failure: 0 again",
       .state = {.serving = false, .failures = 5},
       .sight = Sight::kReady,
       .expected =
           {.state = {.serving = true}, .write = true, .next = Next::kHold, .after = 500ms}},
      {.description = "the held connection closed: check at once",
       .state = {.serving = true},
       .sight = Sight::kClosed,
       .held = 320ms,
       .expected = {.state = {.serving = true}, .after = 0ms}},
      {.description = "closed just after it opened, the first time: still at once (vigil died)",
       .state = {.serving = true},
       .sight = Sight::kClosed,
       .held = 3ms,
       .expected = {.state = {.serving = true, .closed_at_once = true}, .after = 0ms}},
      {.description = "closed at once twice in a row: not in a loop",
       .state = {.serving = true, .closed_at_once = true},
       .sight = Sight::kClosed,
       .held = 1ms,
       .expected = {.state = {.serving = true, .closed_at_once = true}, .after = 100ms}},
      {.description = "a connection held the whole interval: check, and forget the quick closes",
       .state = {.serving = true, .closed_at_once = true},
       .sight = Sight::kQuiet,
       .expected = {.state = {.serving = true}, .after = 0ms}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(next_track_step(c.state, c.sight, c.held, kPolicy), c.expected) << c.description;
  }
}

// A paused vigil (a slow check between two good ones) never moves the address; death does, at
// the first look after its connection closed.
TEST(NextTrackStep, OneSlowCheckWritesNothingButDeathWritesAtOnce) {
  TrackState s;
  std::vector<std::optional<bool>> writes;
  for (Sight sight : {Sight::kReady, Sight::kQuiet, Sight::kNotReady, Sight::kReady, Sight::kQuiet,
                      Sight::kClosed, Sight::kGone}) {
    const TrackStep step = next_track_step(s, sight, 200ms, kPolicy);
    writes.push_back(step.write);
    s = step.state;
  }
  EXPECT_EQ(writes,
            (std::vector<std::optional<bool>>{true, std::nullopt, std::nullopt, std::nullopt,
                                              std::nullopt, std::nullopt, false}));
}

}  // namespace
}  // namespace vigil::cli
