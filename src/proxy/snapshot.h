// PoolSnapshot: what a worker needs to place a new connection, published by the control thread as
// an immutable shared_ptr<const PoolSnapshot> and swapped whole (never mutated) when health or
// config changes. Workers read it without locks; each keeps its own copy of the pointer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "model/config.h"
#include "net/address.h"
#include "net/socket.h"
#include "proxy/stats.h"

namespace vigil::proxy {

// The pool's replay mode (model/config.h): kept under this name for the data plane's code.
using Replay = model::Replay;

struct Backend {
  std::string member_id;
  std::string name;  // for logs
  net::SocketAddress address;
  int weight = 1;  // > 0: members with weight 0 are never candidates
  // A PROXY header before the client's first byte on every connection to it (member over pool).
  model::ProxyProtocol proxy_protocol = model::ProxyProtocol::kOff;
  // Compared by identity, and it must be: workers count a member's sessions in it and close them
  // by it. A member made anew (its address rewritten, even to one that resolves the same) has a
  // new one, and a snapshot still carrying the old would count where nobody reads.
  std::shared_ptr<BackendStats> stats;

  // Every field, `name` too: a rename through the API shows in the workers' logs.
  bool operator==(const Backend&) const = default;
};

class StickTable;

// Session persistence as the data plane carries it out (model::SessionPersistence): the pool's
// stick table, shared by the workers, keyed by the client's address cut to its family's prefix.
struct Stickiness {
  bool on = false;
  int v4_prefix = 32;
  int v6_prefix = 128;
  // Made by the control thread with the pool's timeout and Octavia's amphora size (10k), and
  // handed from snapshot to snapshot while they do not change: members coming and going must not
  // forget the clients. Compared by identity. Null when off.
  std::shared_ptr<StickTable> table;
  bool operator==(const Stickiness&) const = default;
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
  // A member that has not sent its first byte this long after the client's first bytes went out
  // to it (or that closes or resets before it) is reported like a failed connect, and the
  // session moves to another member as `replay` allows. Zero disables (the pool's default is 1s;
  // zero here keeps data-plane tests that do not ask for it as they were).
  Duration first_byte_timeout = Duration::zero();
  Replay replay = Replay::kTls;
  Stickiness stickiness;
  // The members that may take new connections now, as the control thread decided them (healthy
  // primaries; else healthy backups; else, failing open, every enabled member). Empty: refuse.
  std::vector<Backend> candidates;
  uint64_t version = 0;  // bumps on every publish; lets a worker reset per-pool balancer state

  // Every field, so that a field added later reaches the workers without anyone remembering to
  // compare it (a hand-written comparison once forgot backend_dead_peer). `version` is compared
  // too, as two publications are not the same one: to ask whether a new snapshot says anything
  // new, compare it under the old one's version (daemon/pool_state.cc). Leaving `version` out
  // here would take a second type or a wrapper whose == lies; neither is worth it.
  bool operator==(const PoolSnapshot&) const = default;
};

using PoolSnapshotPtr = std::shared_ptr<const PoolSnapshot>;

// What a publish sends the workers: the pools that changed since the last one, by index, and the
// size of the table after (it only grows; a removed pool's index holds null). Sending the whole
// table each time copied ten thousand pointers per worker per publish, and freed as many, for
// the one pool an API write or a health change touched.
struct PoolSlots {
  size_t size = 0;
  std::vector<std::pair<uint32_t, PoolSnapshotPtr>> set;  // indices below `size`
  bool whole = false;  // `set` is the whole table: indices it leaves out are null

  // The whole table: every index set.
  static PoolSlots all(const std::vector<PoolSnapshotPtr>& pools) {
    PoolSlots s{.size = pools.size(), .whole = true};
    s.set.reserve(pools.size());
    for (size_t i = 0; i < pools.size(); ++i)
      s.set.emplace_back(static_cast<uint32_t>(i), pools[i]);
    return s;
  }
};

// A passive failure: a connect from the data plane to `member_id` failed. Sent to the control
// thread, which takes the member out of rotation and checks it at once.
struct ConnectFailure {
  std::string pool;
  std::string member_id;
  std::string reason;
  // No answer at all (connect timeout, or slower than hedge_after): the host may be dark, so its
  // established sessions may be dead without a FIN or RST.
  bool silent = false;
  // How long it waited unanswered before the worker gave up on it (silent only): a check that got
  // no answer within that time is the silence's second signal already (daemon/member_health.h).
  Duration waited{};
  // The wait the pool allows it (connect_timeout for a connect, first_byte_timeout for a first
  // flight): the check that confirms the silence is judged by the time this runs out.
  Duration limit{};
};

// Not a failure yet: a first flight to `member_id` has waited Session::suspect_after() without an
// answer. Sent to the control thread, which checks the member at once and leaves it in rotation.
struct MemberSuspect {
  std::string pool;
  std::string member_id;
  Duration waited{};  // as ConnectFailure's
  Duration limit{};
};

}  // namespace vigil::proxy
