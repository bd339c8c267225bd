#include "config/report.h"

#include <algorithm>

#include "base/duration.h"
#include "config/advice.h"
#include "config/timing.h"

namespace vigil::config {
namespace {

std::string plural(size_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

// Whole milliseconds, rounded up: a worst case must not read shorter than it is.
std::string show(Duration d) {
  return format_duration(std::chrono::ceil<std::chrono::milliseconds>(d));
}

std::string pool_line(const model::Pool& pool, bool opted_out) {
  std::string line = "pool " + pool.name + ": " + plural(pool.members.size(), "member") + ", ";
  if (!pool.health_monitor)
    return line + (opted_out ? "no monitor (health_monitor: none)" : "no monitor");
  const model::HealthMonitor& m = *pool.health_monitor;
  line += model::to_string(m.type);
  if (model::uses_http(m.type)) {
    line += " " + m.http_method + " " + m.path;
  }
  const PoolTiming timing = monitor_timing(m);
  return line + " every " + show(m.interval) + "; dead member out within " +
         show(timing.worst_mark_down) + ", recovered member back within " +
         show(timing.worst_mark_up);
}

std::string summary(const LoadResult& result, const std::vector<Diagnostic>& diagnostics) {
  const int errors = count_errors(diagnostics);
  const int warnings = count_warnings(diagnostics);
  const std::string tail = warnings > 0 ? " (" + plural(warnings, "warning") + ")" : "";
  if (errors > 0 || !result.config) return plural(std::max(errors, 1), "error") + tail;
  const model::Config& config = *result.config;
  size_t members = 0;
  for (const model::Pool& p : config.pools) members += p.members.size();
  return "OK: " + plural(config.listeners.size(), "listener") + ", " +
         plural(config.pools.size(), "pool") + ", " + plural(members, "member") + tail;
}

}  // namespace

std::string check_report(const LoadResult& result, const LocalAddresses& local_addresses) {
  std::vector<Diagnostic> diagnostics = result.diagnostics;
  if (result.config) {
    for (Diagnostic& d :
         advise(*result.process, *result.config, result.monitor_opt_outs, local_addresses)) {
      diagnostics.push_back(std::move(d));
    }
  }
  sort_by_line(diagnostics);
  std::string out;
  for (const Diagnostic& d : diagnostics) out += d.to_string() + "\n";
  if (result.config) {
    for (const model::Pool& pool : result.config->pools) {
      const bool opted_out =
          std::ranges::find(result.monitor_opt_outs, pool.name) != result.monitor_opt_outs.end();
      out += pool_line(pool, opted_out) + "\n";
    }
  }
  return out + summary(result, diagnostics) + "\n";
}

}  // namespace vigil::config
