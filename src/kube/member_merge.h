// The members a pool runs with when a Kubernetes API lists them (members_from.kubernetes): the
// API's ready endpoints, each as the file's member at that address and port when there is one
// (its name, weight and monitor settings), else as a new member named ADDRESS:PORT; while the list
// is stale, the file's other members too; the file's `backup` members last, whatever the API
// says (the node-local preset's last resort).
// Pure.
#pragma once

#include <vector>

#include "kube/endpoint_slices.h"
#include "model/config.h"

namespace vigil::kube {

// Requires: `endpoints` non-empty (an empty answer keeps the last known set: members_source.h).
// `stale`: the API's list could not be confirmed lately; the file's other members (the bootstrap
// set) come back beside it, after the API's, so that a list gone out of date while the masters
// were replaced still has the ones the operator wrote down (k3s#11349: a stale list wedged agents).
model::Pool with_api_members(const model::Pool& file_pool, const std::vector<Endpoint>& endpoints,
                             bool stale = false);

// "10.0.0.11:6443", "[fd00::11]:6443": the name of a member only the API lists.
std::string member_name(const Endpoint& e);

}  // namespace vigil::kube
