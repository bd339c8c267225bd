// Parsing and printing of the duration strings used in configs and logs ("500ms", "5s", "1m30s").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/error.h"

namespace vigil {

// Accepts one or more <number><unit> parts, unit one of ns, us, ms, s, m, h; e.g. "1h", "1m30s",
// "1.5s". A bare number is rejected: "5" could mean seconds or milliseconds.
Result<Duration> parse_duration(std::string_view text);

// The shortest exact form: "1s", "250ms", "1m30s", "0s".
std::string format_duration(Duration d);

// A coarse age for people, two units at most: "12s", "3m4s", "2h5m", "3d4h"; 0s when negative.
// The admin status page and the CLI's tables both print it, so an age reads the same in each.
std::string short_age(int64_t seconds);

}  // namespace vigil
