// What a member's fault cost its clients: the sessions vigil closed on it, the connects and first
// flights it moved to other members, and the client sessions that failed all the same. Counted by
// the data plane (proxy::BackendStats), attributed to the member's transitions by the control
// thread (daemon/disruption.h). Plain values; any thread.
#pragma once

#include <cstdint>

#include "model/admin_override.h"
#include "model/status.h"

namespace vigil::model {

struct DisruptionCounts {
  // Sessions that had the member's answers, closed by vigil (marked down, maintenance, silent)
  // so that their clients reconnect through another member.
  uint64_t sessions_closed = 0;
  uint64_t retries = 0;  // connects moved to another member after one to it failed
  uint64_t hedges = 0;   // second connects to another member because one to it was slow
  uint64_t replays = 0;  // first flights sent again to another member after it failed them
  // Client sessions that ended without a byte from any member after it failed them: no member
  // left, or a first flight that could not be moved.
  uint64_t failed_sessions = 0;

  bool operator==(const DisruptionCounts&) const = default;
  DisruptionCounts operator-(const DisruptionCounts& o) const {
    return {.sessions_closed = sessions_closed - o.sessions_closed,
            .retries = retries - o.retries,
            .hedges = hedges - o.hedges,
            .replays = replays - o.replays,
            .failed_sessions = failed_sessions - o.failed_sessions};
  }
};

// The member's last time out of service: the transition that took it out, and what its clients
// saw from the moment it was last in service until it came back (or until now).
struct Disruption {
  OperatingStatus status = OperatingStatus::kError;  // the status it left service for
  WallTime at{};                                     // when
  DisruptionCounts counts;
  bool ongoing = true;  // still out of service: the counts may grow

  bool operator==(const Disruption&) const = default;
};

}  // namespace vigil::model
