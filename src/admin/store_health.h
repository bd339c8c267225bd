// How the Octavia API's shared store (admin.store type etcd: octavia/shared_store.h) is doing, as
// /v1/status, /metrics and the Octavia API's reads show it. Pure; any thread.
#pragma once

#include <string>

#include "admin/http.h"
#include "admin/metrics_query.h"
#include "admin/octavia/shared_store.h"

namespace vigil::admin {

// Seconds since the node last knew it held all of etcd's changes; 0 while it follows.
int64_t store_age_seconds(const StoreHealth& h, model::WallTime now);

// The `"store": {...}` member of /v1/status.
std::string store_health_json(const StoreHealth& h, model::WallTime now);

// The vigil_store_* families of /metrics (process scope) that `query` asks for.
std::string store_metrics_text(const StoreHealth& h, model::WallTime now,
                               const MetricsQuery& query = {});

// The status page's line about the store: following, or not and why (HTML).
std::string store_notice_html(const StoreHealth& h, model::WallTime now);

// `r` with the store's health: /v1/status gets its "store" member, the Octavia API's reads the
// header `X-Vigil-Store-Age`. Also when `r` is answered later. (/metrics renders the store's
// families itself, at the end of its stream.)
enum class StoreShown { kStatus, kHeader };
Response with_store(Response r, const StoreHealth& h, model::WallTime now, StoreShown how);

}  // namespace vigil::admin
