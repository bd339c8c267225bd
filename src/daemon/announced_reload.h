// A reload that systemd hears of, whoever asked for it: SIGHUP, or POST /v1/reload (`vigil
// reload`, the unit's ExecReload=). Control thread only.
#pragma once

#include <string>
#include <vector>

#include "base/error.h"

namespace vigil::daemon {

class ControlPlane;

// RELOADING=1, the reload, then READY=1 with its result as STATUS= (its first line: a refusal's
// message goes on with one line per config error). Returns the reload's result: its warnings.
Result<std::vector<std::string>> announced_reload(ControlPlane& control);

}  // namespace vigil::daemon
