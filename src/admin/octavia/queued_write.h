// With admin.store type etcd, the Octavia API's writes run one at a time, each decided on the
// state the one before left (shared_store.h): a write is routed again, whole, when its turn comes
// (RouteContext::in_turn), and answered when its own answer is ready. Control thread.
#pragma once

#include "admin/http.h"

namespace vigil::admin {

// The answer (Response::later) that queues `request` on ctx.shared; 503 when too many wait.
Response queued_write(const Request& request, const RouteContext& ctx);

}  // namespace vigil::admin
