// /healthz and /readyz, the answers keepalived's vrrp_script (through `vigil health`) and
// systemd trust: whether vigil serves at all, and whether each listener has a member to send a
// connection to. Pure functions of the daemon's word and its views; control thread (routes).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "admin/http.h"
#include "model/status_tree.h"

namespace vigil::admin {

// 200 "ok" while `problem` is empty, else 503 with the reason.
Response healthz(const std::optional<std::string>& problem);

// For a vigil that serves (else healthz() answers): 503 when some listener has members and none
// usable (a pool in fail-open counts as usable, and the line says so), else 200. A listener with
// no pool or no member does not count: every node holds the same ("idle"). One line per listener:
// "ok api: 2/3 members usable",
// "idle api: no pool", "idle api: pool masters has no members",
// "fail-open api: no member healthy in pool masters, routing to the 2 of 3 that take connections",
// "down api: no usable member (pool masters has 3 members)".
// `store_problem` (admin.store.readyz): why this node does not follow its shared store; it makes
// the answer 503 with the line "down store: ...".
Response readyz(const std::vector<model::LoadBalancerView>& lbs,
                const std::optional<std::string>& store_problem = std::nullopt);

}  // namespace vigil::admin
