// PoolSnapshot: what a worker needs to place a new connection, published by the control thread as
// an immutable shared_ptr<const PoolSnapshot> and swapped whole (never mutated) when health or
// config changes. Workers read it without locks; each keeps its own copy of the pointer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "model/config.h"
#include "net/address.h"
#include "net/socket.h"
#include "proxy/stats.h"

namespace vigil::proxy {

struct Backend {
  std::string member_id;
  std::string name;  // for logs
  net::SocketAddress address;
  int weight = 1;  // > 0: members with weight 0 are never candidates
  std::shared_ptr<BackendStats> stats;
};

struct PoolSnapshot {
  std::string name;
  model::Algorithm algorithm = model::Algorithm::kRoundRobin;
  Duration connect_timeout = std::chrono::seconds(1);
  int retries = 3;
  // Start a second connect to another member when the first has not completed by then; zero
  // disables. Nothing has been sent yet, so whichever completes first is used.
  Duration hedge_after = std::chrono::milliseconds(200);
  net::DeadPeerOptions backend_dead_peer;
  // The members that may take new connections now, as the control thread decided them (healthy
  // primaries; else healthy backups; else, failing open, every enabled member). Empty: refuse.
  std::vector<Backend> candidates;
  uint64_t version = 0;  // bumps on every publish; lets a worker reset per-pool balancer state
};

using PoolSnapshotPtr = std::shared_ptr<const PoolSnapshot>;

// A passive failure: a connect from the data plane to `member_id` failed. Sent to the control
// thread, which takes the member out of rotation and checks it at once.
struct ConnectFailure {
  std::string pool;
  std::string member_id;
  std::string reason;
  // No answer at all (connect timeout, or slower than hedge_after): the host may be dark, so its
  // established sessions may be dead without a FIN or RST.
  bool silent = false;
};

}  // namespace vigil::proxy
