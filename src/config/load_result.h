// LoadResult: what loading a config gives, whatever its format (vigil YAML, haproxy.cfg): the
// model when there is no error, and every diagnostic with its file:line. A plain value; any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/diagnostic.h"
#include "model/config.h"

namespace vigil::config {

struct LoadResult {
  std::optional<model::Config> config;  // set only when there is no error
  std::vector<Diagnostic> diagnostics;  // errors and warnings, in file order
  // Pools written with `health_monitor: none` (an explicit opt-out, not an oversight): advise()
  // does not warn about them. Kept here until model::Pool can record it.
  std::vector<std::string> monitor_opt_outs;

  bool ok() const;  // no error
};

}  // namespace vigil::config
