// What `vigil health --track-file` does next, decided from what it last saw of the local vigil:
// the value keepalived's track_file should hold, and how to look again. Pure (no I/O, no
// clock; the shell in health.cc carries the step out); any thread.
#pragma once

#include <chrono>
#include <optional>

namespace vigil::cli {

// What the tracker saw.
enum class Sight {
  kReady,     // GET /readyz answered 200
  kNotReady,  // it answered something else, or nothing within the check's second
  kBroken,    // the check's connection broke before an answer (reset, end of stream): as vigil dies
  kGone,      // nothing listens on the admin address (connection refused): vigil does not run
  kClosed,    // vigil closed the connection the tracker held: it may have died
  kQuiet,     // the interval passed with that connection still open
};

struct TrackPolicy {
  int fall = 2;                             // failed checks in a row that say "not serving"
  std::chrono::milliseconds interval{500};  // between checks while vigil serves
  // After a failed check that has not decided yet (a broken one is repeated at once), and after
  // a held connection closed at once twice in a row (a daemon that ends every connection is not
  // watched in a loop).
  std::chrono::milliseconds retry{100};
};

struct TrackState {
  std::optional<bool> serving;  // what the file says; none before the first write
  int failures = 0;             // failed checks in a row
  bool closed_at_once = false;  // the last held connection ended within `retry`
  bool operator==(const TrackState&) const = default;
};

enum class Next {
  kCheck,  // GET /readyz, after `after`
  kHold,   // connect and hold the connection, sending nothing, for at most `after`
};

struct TrackStep {
  TrackState state;
  std::optional<bool> write;  // the file's new value: true writes 0 (serving), false 1
  Next next = Next::kCheck;
  std::chrono::milliseconds after{0};
  bool operator==(const TrackStep&) const = default;
};

// `held`: with kClosed, how long the connection was held before vigil closed it.
TrackStep next_track_step(const TrackState& state, Sight sight, std::chrono::milliseconds held,
                          const TrackPolicy& policy = {});

}  // namespace vigil::cli
