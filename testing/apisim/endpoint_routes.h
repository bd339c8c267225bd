// The EndpointSlice routes: discovery.k8s.io/v1 reads and watches, and the /sim/endpoints test
// controls. Answers as plain values, like routes.h; the server's one thread only.
#pragma once

#include <string_view>

#include "testing/apisim/routes.h"
#include "testing/apisim/state.h"
#include "testing/apisim/target.h"

namespace vigil::apisim {

constexpr std::string_view kDiscoveryV1Path = "/apis/discovery.k8s.io/v1";

// GET /apis/discovery.k8s.io/v1[/namespaces/NS]/endpointslices[/NAME], ?watch=true included, and
// the group version's discovery. Requires: target.path starts with kDiscoveryV1Path.
Reply endpoint_slice_api(const SimState& state, const Target& target);

// POST /sim/endpoints?set=LIST, /sim/endpoints/break, /sim/endpoints/compact,
// /sim/endpoints/refuse?code=N. A 200 Reply's body
// is left empty for the caller to fill with the simulator's state.
Reply endpoint_controls(SimState& state, std::string_view method, const Target& target);

}  // namespace vigil::apisim
