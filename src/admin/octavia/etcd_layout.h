// How the Octavia API's objects lie in etcd (admin.store type etcd), and the pure steps between
// them and an ApiState: the write that turns one state into another, and the state that etcd's
// changes or its whole prefix make. The shell that talks to etcd is shared_store.h.
//
// One key per load balancer, `<prefix>loadbalancers/<id>`, its value lb_to_json() of the load
// balancer with its listeners, pools, members and monitors: the same text as the state file's,
// validated the same way when read. A write is one transaction guarded by the mod_revision this
// node knows of every load balancer it changes (0: it must not exist yet), so two nodes that
// change one load balancer at once cannot both win: the second gets Octavia's 409, as Octavia
// answers a write to a load balancer that another write holds PENDING_UPDATE. `<prefix>vigil`
// marks a prefix that vigil writes: a node whose cache holds load balancers never takes a prefix
// without it for "everything was deleted" (a new or wrong etcd); `vigil store import` fills one.
// Member overrides (drain, maint) are each node's own and stay in its state file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "admin/octavia/objects.h"
#include "etcd/types.h"

namespace vigil::admin {

// Each load balancer's mod_revision in etcd, as this node last saw it, by id.
using Revisions = std::unordered_map<std::string, int64_t>;

std::string lb_key(std::string_view prefix, std::string_view id);
// The id in a load balancer's key; none for any other key under the prefix.
std::optional<std::string> lb_id_of(std::string_view prefix, std::string_view key);
std::string marker_key(std::string_view prefix);
inline constexpr std::string_view kMarkerValue = R"({"vigil": 1})";

// The transaction that makes etcd hold `after` where it held `before` as of `revisions`: a put of
// each load balancer `after` adds or changes, a delete of each it lacks, each guarded by its
// known revision; and the marker. Empty ops: the write changed no load balancer (an override).
struct WritePlan {
  std::vector<etcd::Compare> compares;
  std::vector<etcd::Op> ops;
  std::vector<std::string> put_ids;
  std::vector<std::string> deleted_ids;
};
WritePlan plan_write(const ApiState& before, const ApiState& after, const Revisions& revisions,
                     std::string_view prefix);

// What etcd's changes (a watch batch) or its whole prefix (a range) make of a state.
struct Followed {
  ApiState next;
  Revisions revisions;
  std::vector<std::string> problems;  // keys whose value is not vigil's, each with why
  size_t changed = 0;                 // load balancers put or removed
};

// `events` on `state`: a put newer than the revision known replaces or adds its load balancer
// (ones this node wrote itself, or saw, are skipped), a delete removes it. A value that is not a
// valid load balancer of its key's id is a problem and changes nothing.
Followed follow_events(const ApiState& state, const Revisions& revisions,
                       const std::vector<etcd::Event>& events, std::string_view prefix);

// The state that the prefix's whole contents `kvs` make: the load balancers that etcd holds, in
// the order they were created; those whose revision is known are kept as they are (shared), the
// others read from their values. Overrides stay `state`'s.
Followed follow_range(const ApiState& state, const Revisions& revisions,
                      const std::vector<etcd::KeyValue>& kvs, std::string_view prefix);

}  // namespace vigil::admin
