// PUT and DELETE /v2/lbaas/quotas/{project_id}: a project's quotas set or reset, kept in the
// object store's state (quotas.h). Control thread.
#pragma once

#include <optional>

#include "admin/http.h"
#include "admin/target.h"

namespace vigil::admin {

// The answer to a quota write, or nullopt when the request is none (another path or method).
std::optional<Response> route_quota_write(const Request& request, const Target& target,
                                          const RouteContext& ctx);

}  // namespace vigil::admin
