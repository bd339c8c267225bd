// The members a pool runs with when a Kubernetes API lists them (members_from.kubernetes): the
// API's ready endpoints, each as the file's member at that address and port when there is one
// (its name, weight and monitor settings), else as a new member named ADDRESS:PORT; the file's
// `backup` members after them, whatever the API says (the node-local preset's last resort).
// Pure.
#pragma once

#include <vector>

#include "kube/endpoint_slices.h"
#include "model/config.h"

namespace vigil::kube {

// Requires: `endpoints` non-empty (an empty answer keeps the last known set: members_source.h).
model::Pool with_api_members(const model::Pool& file_pool, const std::vector<Endpoint>& endpoints);

// "10.0.0.11:6443", "[fd00::11]:6443": the name of a member only the API lists.
std::string member_name(const Endpoint& e);

}  // namespace vigil::kube
