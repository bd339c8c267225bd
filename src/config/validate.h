// Checks across the objects of a config, after each was read on its own: unique names, listeners
// naming pools that exist, binds that do not clash (with each other and with the process's
// admin.listen), pools no listener uses (a warning).
// Pure function; objects with empty names (already reported as missing) are skipped.
#pragma once

#include <vector>

#include "config/diagnostic.h"
#include "model/config.h"
#include "model/process.h"

namespace vigil::config {

void validate(const model::Process& process, const model::Config& config,
              std::vector<Diagnostic>& out);

}  // namespace vigil::config
