// LoadResult: what loading a config gives, whatever its format (vigil YAML, haproxy.cfg): the
// model when there is no error (the process settings and the file's load balancer, side by side),
// and every diagnostic with its file:line. A plain value; any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/diagnostic.h"
#include "model/config.h"
#include "model/process.h"

namespace vigil::config {

struct LoadResult {
  // Set together, only when there is no error. Two members rather than a Process inside Config,
  // so that a load balancer the Octavia API makes (also a model::Config) has no process settings
  // to ignore, and the daemon has one place to read them from.
  std::optional<model::Process> process;
  std::optional<model::Config> config;
  std::vector<Diagnostic> diagnostics;  // errors and warnings, in file order
  // Pools written with `health_monitor: none` (an explicit opt-out, not an oversight): advise()
  // does not warn about them. Kept here until model::Pool can record it.
  std::vector<std::string> monitor_opt_outs;

  bool ok() const;  // no error
};

}  // namespace vigil::config
