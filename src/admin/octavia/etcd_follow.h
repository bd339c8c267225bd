// What etcd's changes (a watch batch) or its whole prefix (a range) make of an ApiState: load
// balancers put together from their own keys and their members' (etcd_layout.h). Pure; the shell
// that carries the result out is shared_store.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "admin/octavia/etcd_layout.h"
#include "admin/octavia/objects.h"
#include "etcd/types.h"

namespace vigil::admin {

struct Followed {
  ApiState next;
  Revisions revisions;
  std::vector<std::string> problems;  // keys whose value is not vigil's, each with why
  size_t changed = 0;                 // load balancers put or removed
};

// `events` on `state`: an event newer than the revision known of its key is carried out (ones
// this node wrote itself, or saw, are skipped). A load balancer's put replaces it and keeps the
// members that have keys of their own; a member's put replaces or adds that member alone. A
// value that is not valid for its key is a problem and changes nothing. A load balancer that
// ends as it was is kept as it was (shared): a write that moved its members to keys of their own
// changes nothing here.
Followed follow_events(const ApiState& state, const Revisions& revisions,
                       const std::vector<etcd::Event>& events, std::string_view prefix);

// The state that the prefix's whole contents `kvs` make: the load balancers that etcd holds, in
// the order they were created, each pool's members in the order their keys were (after those
// inside the load balancer's value, as vigil wrote before members had keys). Those unchanged
// since the revisions known, or equal to what this node holds, are kept as they are (shared);
// of a broken value, the last good version stays. Overrides stay `state`'s.
Followed follow_range(const ApiState& state, const Revisions& revisions,
                      const std::vector<etcd::KeyValue>& kvs, std::string_view prefix);

}  // namespace vigil::admin
