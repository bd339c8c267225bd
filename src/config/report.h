// The text `vigil check` prints. Pure function.
#pragma once

#include <string>

#include "config/advice.h"
#include "config/load_result.h"

namespace vigil::config {

// Every diagnostic of the load and of advise(), in file order; then, when the config loaded, one
// line per pool (members, monitor, worst-case mark-down and mark-up times); then a last line,
// "OK: 2 listeners, 2 pools, 6 members (1 warning)" or "2 errors (1 warning)".
std::string check_report(const LoadResult& result,
                         const LocalAddresses& local_addresses = std::nullopt);

}  // namespace vigil::config
