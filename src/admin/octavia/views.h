// The load balancers the admin API shows: the daemon's views of the config file's load balancers
// first, then one view per load balancer of the object store. Those are built from the store, so
// they carry the names people gave and every object, also one the daemon does not run (a disabled
// listener, or before the daemon applied anything), and take the live state (statuses, checks,
// counters, bound address) from the daemon's view of the same ids where there is one. Pure;
// control thread (it reads the store).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "admin/octavia/object_store.h"
#include "model/status_tree.h"

namespace vigil::admin {

// `store` may be null (no API objects): the daemon's views as they are. With a `pool_key`
// (admin/pool_key.h) the API's load balancers are narrowed as Daemon::views narrows the
// daemon's: those with a pool the key can name, with only those pools.
std::vector<model::LoadBalancerView> merged_views(
    std::vector<model::LoadBalancerView> daemon, const ObjectStore* store,
    std::optional<std::string_view> pool_key = std::nullopt);
// The same from the API's state (null: none), e.g. a copy of it off the control thread: it walks
// the state's load balancers and never looks one up through the state's hints.
std::vector<model::LoadBalancerView> merged_views(
    std::vector<model::LoadBalancerView> daemon, const ApiState* state,
    std::optional<std::string_view> pool_key = std::nullopt);

// The view of the API's load balancer `lb_id` alone (none when the store has no such load
// balancer); `daemon` is Daemon::views of it (its live view). Costs what it holds, not what the
// store holds: what a write of its objects needs. With `only_member`, its pools hold that member
// alone (none when no member has that id, as "" has not): what a write of one member needs, at
// a cost that does not grow with its pool. A pool's status is then the daemon's, or, for a pool
// the daemon does not run yet, that of the members shown.
std::vector<model::LoadBalancerView> api_lb_views(
    std::vector<model::LoadBalancerView> daemon, const ObjectStore& store, std::string_view lb_id,
    std::optional<std::string_view> only_member = std::nullopt);

// The views an API write is decided on (writes.h): those of `daemon` that are not the store's
// (the config file's: their ports are taken, their objects read-only), then the view of the
// store's load balancer `lb` when there is one (its live view, if `daemon` has it). Costs what the
// file and that load balancer hold, not what the store holds.
// `only_member` narrows that load balancer's view as api_lb_views() does.
std::vector<model::LoadBalancerView> write_views(
    std::vector<model::LoadBalancerView> daemon, const ObjectStore& store,
    const ApiLoadBalancer* lb, std::optional<std::string_view> only_member = std::nullopt);

// One API load balancer's view; `live` is the daemon's view of it, or null; `only_member` as
// api_lb_views() has it.
model::LoadBalancerView api_view(const ApiLoadBalancer& lb, const model::LoadBalancerView* live,
                                 std::optional<std::string_view> only_member = std::nullopt);

}  // namespace vigil::admin
