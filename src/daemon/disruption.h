// Attributes what the data plane counted of a member's faults (proxy::BackendStats: sessions
// closed, retries, hedges, replays, failed sessions) to the member's transitions: a time out of
// service gets what its clients saw from the moment the member was last in service until it is
// back. Pure (the caller passes the time); control thread only.
#pragma once

#include <optional>

#include "daemon/runtime.h"
#include "model/disruption.h"

namespace vigil::daemon {

// ONLINE and NO_MONITOR: the member takes its share of new connections.
bool in_service(model::OperatingStatus s);

// The member's status went from `before` to its current one at `at`: opens, updates or closes
// its record of being out of service.
void note_transition(MemberRuntime& m, model::OperatingStatus before, model::WallTime at);

// The member's last time out of service with its counts as of now (still growing while it is
// out); none before its first.
std::optional<model::Disruption> last_disruption(const MemberRuntime& m);

// The counts of the member's current time out of service, or of its last one.
model::DisruptionCounts disruption_counts(const MemberRuntime& m);

}  // namespace vigil::daemon
