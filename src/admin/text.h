// Small text forms shared by the admin renderers (JSON, metrics, status page): timestamps, health
// names, "address:port". Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/status.h"
#include "model/status_tree.h"

namespace vigil::admin {

// A WallTime{} (the epoch) stands for "never" in the views; renderers print null or "-" for it.
inline bool is_set(model::WallTime t) { return t != model::WallTime{}; }

// "2024-05-01T12:00:00Z": the vigil-native form.
std::string iso8601_utc(model::WallTime t);

// "2024-05-01T12:00:00": Octavia prints UTC timestamps without a zone, and clients parse that.
std::string octavia_time(model::WallTime t);

// "2024-05-01T12:00:00.123456": the time an object was created or changed, as Octavia on a
// database that keeps microseconds (SQLite, or MySQL with DATETIME(6)) prints it. Lists are
// ordered by created_at and then by the random id; the microseconds keep objects made within the
// same second in the order they were made.
std::string octavia_time_precise(model::WallTime t);

// "unchecked", "up", "down".
std::string_view health_name(model::Health h);

// "10.0.0.1:6443", "[fd00::1]:6443", ":6443" when host is empty.
std::string host_port(std::string_view host, uint16_t port);

// Whole seconds from `since` to `now`, never negative; 0 when `since` is not set.
int64_t seconds_between(model::WallTime since, model::WallTime now);

// An operator's override for people: "drain, set 12s ago by CLI".
std::string override_text(const model::AdminOverride& o, model::WallTime now);

}  // namespace vigil::admin
