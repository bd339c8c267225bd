#include "cli/health_track.h"

namespace vigil::cli {

TrackStep next_track_step(const TrackState& state, Sight sight, std::chrono::milliseconds held,
                          const TrackPolicy& policy) {
  TrackStep step{.state = state};
  TrackState& s = step.state;
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
    case Sight::kBroken:
      // A paused or slow vigil still has its listener, so a check can fail once without vigil
      // being gone: only `fall` of them in a row decide. A connection that broke before an
      // answer is what a dying vigil leaves (its listener took the connection, then closed): it
      // is looked at again at once, finds nothing listening, and the VIP refuses connections
      // no longer than needed.
      ++s.failures;
      if (s.failures >= policy.fall) say(false);
      if (s.serving == false) {
        step.after = policy.interval;
      } else {
        step.after = sight == Sight::kBroken ? std::chrono::milliseconds{0} : policy.retry;
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
