// The status page's pictures of a member's last hour (model::HourView) as inline SVG: no script,
// no font, nothing fetched. Pure; any thread.
#pragma once

#include <string>

#include "model/member_history.h"

namespace vigil::admin {

// The slowest check of each minute as a line (gaps where nothing was checked), red dots where
// checks failed; its title says the hour's slowest.
std::string duration_sparkline(const model::HourView& hour);

// One bar a minute: green all up, amber checks failing while up, red down (ERROR) for part or
// all of it, grey not watched yet.
std::string state_sparkline(const model::HourView& hour);

// "0s", "45s", "12m3s": a downtime for people.
std::string downtime_text(int64_t ms);

}  // namespace vigil::admin
