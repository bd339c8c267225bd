#include "cli/health_track.h"

namespace vigil::cli {

TrackStep next_track_step(const TrackState& state, Sight sight, std::chrono::milliseconds held,
                          const TrackPolicy& policy) {
  TrackStep step{.state = state};
  TrackState& s = step.state;
  s.closed = sight == Sight::kClosed;
  auto say = [&](bool serving) {
    if (s.serving != serving) step.write = serving;
    s.serving = serving;
  };
  switch (sight) {
    case Sight::kReady:
      s.failures = 0;
      say(true);
      step.next = Next::kHold;
      step.after = policy.interval;
      break;
    case Sight::kNotReady:
      // A paused or slow vigil still has its listener, so a check can fail once without vigil
      // being gone: only `fall` of them in a row decide.
      // Right after vigil closed the held connection, a failed check (a reset: the dying vigil's
      // listener took the connection before it closed) is looked at again at once: the next
      // look finds nothing listening, and the VIP refuses no connection longer than needed.
      ++s.failures;
      if (s.failures >= policy.fall) say(false);
      if (s.serving == false) {
        step.after = policy.interval;
      } else {
        step.after = state.closed ? std::chrono::milliseconds{0} : policy.retry;
      }
      break;
    case Sight::kGone:
      // Refused: no process listens on the admin address. Not a slow answer but no vigil at all,
      // and every connection to the VIP is refused here too until keepalived moves it.
      s.failures = policy.fall;
      say(false);
      step.after = policy.interval;
      break;
    case Sight::kClosed: {
      const bool at_once = held < policy.retry;
      step.after = at_once && s.closed_at_once ? policy.retry : std::chrono::milliseconds{0};
      s.closed_at_once = at_once;
      break;
    }
    case Sight::kQuiet:
      s.closed_at_once = false;
      break;
  }
  return step;
}

}  // namespace vigil::cli
