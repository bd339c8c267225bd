// SimState: what the simulated API server answers from. Owned by the server and touched only on
// its single io_context thread; routes read and change it, the server sets shutting_down.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "base/clock.h"
#include "testing/apisim/endpoint_slices.h"
#include "testing/apisim/slice_watchers.h"

namespace vigil::apisim {

// How new connections are treated, for the failover tests' half-dead masters. Connections accepted
// before the fault are served as usual (a load balancer's kept check connection keeps passing).
enum class ConnectionFault {
  kNone,
  kReset,          // accepted, then reset at once, before reading anything
  kReadThenReset,  // accepted, the first bytes (a ClientHello) read, then reset, nothing sent back
};

struct SimState {
  std::string name;               // this node's name; sent as X-Served-By on every answer
  std::string address;            // bound "ADDR:PORT", for discovery answers
  TimePoint warmup_until{};       // before this, /readyz fails and /api* answers 401
  std::set<std::string> failing;  // readyz checks forced to fail
  int forced_status = 0;          // non-zero: /readyz answers this code
  bool shutting_down = false;     // SIGTERM seen: /readyz fails with [-]shutdown
  ConnectionFault fault = ConnectionFault::kNone;
  std::uint64_t resource_version = 1000;  // the one counter of every object, as etcd's revision
  EndpointSlices endpoint_slices;         // of default/kubernetes, set once the address is known
  // Non-zero: every EndpointSlice read and watch answers this code (an API server whose RBAC or
  // storage refuses the resource while it serves everything else); /sim/endpoints/refuse sets it.
  int slices_refused = 0;
  Duration watch_interval = std::chrono::seconds(1);
  // The open EndpointSlice watches. Routes only count them; ServerContext::answer feeds and
  // breaks them, so that routing stays free of effects on other sessions.
  SliceWatchers slice_watchers;
};

}  // namespace vigil::apisim
