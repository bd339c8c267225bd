// What a reload does to the process settings (model::Process): which of the file's new values
// take effect and which only a restart carries out. A pure function, so that the rules have a
// table test; ControlPlane::reload() carries its answer out. Any thread.
#pragma once

#include <string>
#include <vector>

#include "model/process.h"

namespace vigil::daemon {

struct ProcessReload {
  model::Process next;                // the settings to run with once the reload is applied
  std::vector<std::string> warnings;  // one per change that takes a restart
};

// `running`: the settings in effect; `loaded`: the file's, as just read. The admin socket is bound
// and the state file read once, at start-up: their changes are kept out of `next` and reported.
// The worker threads are started once too: `workers` stays as it runs, without a word, as it
// always has. Everything else (tokens, octavia_project, log format, shutdown_grace) takes effect.
ProcessReload reload_process(const model::Process& running, model::Process loaded);

}  // namespace vigil::daemon
