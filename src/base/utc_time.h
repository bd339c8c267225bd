// Timestamps as the admin API writes them ("2024-05-01T12:00:00Z", UTC, whole seconds): read back
// by the state file's loader and by the CLI. Pure; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace vigil {

// Seconds since the epoch of "2024-05-01T12:00:00Z"; none for any other form.
std::optional<int64_t> parse_utc_seconds(std::string_view iso8601_utc);

}  // namespace vigil
