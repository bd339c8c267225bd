// What an Octavia API write changes of the API's load balancers: those made anew or changed, as
// the configs to run (origin kApi, every id set), and the ids of those removed. The others run on
// as they are, so that a write costs what it changes, not what the daemon runs.
#pragma once

#include <string>
#include <vector>

#include "model/config.h"

namespace vigil::admin {

struct ApiChange {
  std::vector<model::Config> changed;
  std::vector<std::string> removed;
};

}  // namespace vigil::admin
