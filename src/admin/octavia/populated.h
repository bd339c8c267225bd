// A fully-populated load balancer create: Octavia's POST /v2/lbaas/loadbalancers whose body nests
// the load balancer's listeners and pools, each pool with its members and health monitor. It is
// carried out as the single creates (ops.h) of each object, one after the other on the same copy
// of the state, so that every object gets their fields, defaults and refusals; the write then
// applies and saves the whole tree as one change. Pure apart from the context's callbacks; control
// thread.
//
// The shape is Octavia's: `listeners` and `pools` on the load balancer; a listener's
// `default_pool` is either a whole pool or a reference {"name": ...} to a pool of `pools` or of
// another listener; a pool's `members` and `healthmonitor`. Nested objects take no
// loadbalancer_id, listener_id or pool_id: they belong to the load balancer they are in. As on
// every create, any object may name its `id`, and a listener may then name its pool by
// `default_pool_id` instead of by name (the provider agent does: Octavia's pool names may be
// empty or repeated). A pool referenced by name must be named, and named pools' names unique, as
// Octavia requires.
#pragma once

#include <string>
#include <string_view>

#include "admin/octavia/objects.h"
#include "admin/octavia/ops.h"

namespace vigil::admin {

// A load balancer create, populated or not (a body without listeners and pools is
// create_loadbalancer()). Returns the load balancer's id; on an error the state is left half
// changed, and the caller drops it, as after any failed operation.
ApiResult<std::string> create_loadbalancer_tree(ApiState& s, std::string_view body,
                                                const OpContext& c);

}  // namespace vigil::admin
