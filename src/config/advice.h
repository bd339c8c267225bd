// Advice for `vigil check`: warnings about a config that loads but will not behave as its author
// probably expects (no health monitor, slow failover, an exposed or token-less admin API).
// Pure function; never errors.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/diagnostic.h"
#include "model/config.h"
#include "model/process.h"

namespace vigil::config {

// OpenShift's rule: an API server must leave the load balancer within 30 s of /readyz failing.
inline constexpr Duration kOpenShiftMarkDownLimit = std::chrono::seconds(30);

// The IP addresses this host holds (the caller reads them, net::local_addresses()); nullopt when
// unknown, and then no listener is warned about binding an address the host does not hold.
using LocalAddresses = std::optional<std::vector<std::string>>;

// `monitor_opt_outs`: pools written with `health_monitor: none` (LoadResult::monitor_opt_outs),
// which get no "no health monitor" warning.
std::vector<Diagnostic> advise(const model::Process& process, const model::Config& config,
                               const std::vector<std::string>& monitor_opt_outs = {},
                               const LocalAddresses& local_addresses = std::nullopt);

}  // namespace vigil::config
