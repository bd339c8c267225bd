// How the Octavia API's objects lie in etcd (admin.store type etcd), and the pure steps between
// them and an ApiState: the write that turns one state into another (here), and the state that
// etcd's changes or its whole prefix make (etcd_follow.h). The shell that talks to etcd is
// shared_store.h. The only place that knows the keys.
//
// Under the prefix:
// - `loadbalancers/<lb>`: lb_shell_to_json() of the load balancer, its listeners, pools and
//   monitors, without the pools' members; validated as the state file's when read.
// - `members/<lb>/<pool>/<member>`: member_to_json() of each member. A member write sends this
//   key and the pool's, whatever the pool's size; the load balancer's key is not written.
// - `pools/<lb>/<pool>`: empty, and written by every write of the pool's members. A write guards
//   it with the revision the node knows, so that two nodes that add one address:port to one pool
//   at once cannot both win (the second gets Octavia's 409), as the load balancer's own key
//   guards a write of it.
// - `vigil`: marks a prefix that vigil writes; every write moves it. A node whose cache holds load
//   balancers never takes a prefix without it for "everything was deleted" (a new or wrong etcd);
//   `vigil store import` fills one.
// The pool is in the member's key so that deleting a pool or a load balancer deletes its members
// with one range delete: etcd refuses a transaction of more than 128 ops (--max-txn-ops).
//
// A load balancer written whole, with its members inside (lb_to_json(): vigil before 2026-12-05,
// or one whose members do not fit in one transaction), is read with those members; the next write
// of it moves them to keys of their own when they fit. Member overrides (drain, maint) are each
// node's own and stay in its state file.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admin/octavia/objects.h"
#include "etcd/types.h"

namespace vigil::admin {

// Each key under the prefix that this node knows etcd holds, with its mod_revision when the node
// last saw it.
using Revisions = std::map<std::string, int64_t, std::less<>>;

std::string lb_key(std::string_view prefix, std::string_view lb);
std::string pool_key(std::string_view prefix, std::string_view lb, std::string_view pool);
std::string member_key(std::string_view prefix, std::string_view lb, std::string_view pool,
                       std::string_view member);
// Where the keys of one load balancer's members, or of one pool's, begin.
std::string members_of_lb(std::string_view prefix, std::string_view lb);
std::string members_of_pool(std::string_view prefix, std::string_view lb, std::string_view pool);
std::string pools_of_lb(std::string_view prefix, std::string_view lb);
std::string marker_key(std::string_view prefix);
inline constexpr std::string_view kMarkerValue = R"({"vigil": 1})";

// What a key under the prefix names; none for a key vigil does not write.
struct KeyName {
  enum class Kind { kLoadBalancer, kPool, kMember, kMarker } kind = Kind::kMarker;
  std::string lb, pool, member;
  bool operator==(const KeyName&) const = default;
};
std::optional<KeyName> name_of(std::string_view prefix, std::string_view key);

// etcd's default --max-txn-ops. A load balancer whose write would take more ops than this (less
// one for the marker) is written whole, with its members inside.
inline constexpr size_t kMaxTxnOps = 128;

// The transaction that makes etcd hold `after` where it held `before`, as of `revisions`: for each
// load balancer that changed, its key when it changed itself, the keys of the members that
// changed and their pool's key; each guarded by its known revision (0: it must not exist yet);
// and the marker. Empty ops: the write changed no load balancer (an override).
struct WritePlan {
  std::vector<etcd::Compare> compares;
  std::vector<etcd::Op> ops;
  std::vector<std::string> lb_ids;  // the load balancers it writes, for the 409
};
WritePlan plan_write(const ApiState& before, const ApiState& after, const Revisions& revisions,
                     std::string_view prefix);

// What this node knows etcd holds once `ops` committed at `revision`.
void note_committed(const std::vector<etcd::Op>& ops, int64_t revision, Revisions& revisions);

// The puts that hold a new load balancer in etcd, the way plan_write writes one (and vigil store
// import): one put of it whole when its members do not fit in one transaction.
std::vector<etcd::Op> puts_of(const ApiLoadBalancer& lb, std::string_view prefix);

}  // namespace vigil::admin
