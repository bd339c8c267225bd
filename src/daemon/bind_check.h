// Two listeners on one port of one address would silently share it (SO_REUSEPORT), so
// ControlPlane::apply_changes() refuses them before it binds anything, across load balancers too.
// The errors name both listeners as LOAD_BALANCER/LISTENER.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "base/error.h"
#include "config/bind_index.h"
#include "daemon/runtime.h"
#include "model/config.h"

namespace vigil::daemon {

// lbs.front() is the file's load balancer: its listeners are indexed once per reload (`file`,
// when given, is that index), and an API write checks only its own listeners, against the
// file's and each other (and check_running_binds()). Returns the file's index.
Result<std::shared_ptr<const config::BindIndex>> check_binds(
    const std::vector<model::Config*>& lbs, std::shared_ptr<const config::BindIndex> file);

// An API write's listeners (of `given`) against those of the API's load balancers it leaves
// running (`running` but `replaced`): one pass over those, each looked up among the few given.
Result<void> check_running_binds(std::span<model::Config* const> given,
                                 std::span<const LoadBalancerRuntime> running,
                                 const std::vector<const LoadBalancerRuntime*>& replaced);

}  // namespace vigil::daemon
