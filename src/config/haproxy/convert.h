// `vigil convert haproxy.cfg`: a config as vigil YAML. Pure functions.
#pragma once

#include <string>

#include "config/load_result.h"
#include "model/config.h"
#include "model/process.h"

namespace vigil::config {

// vigil YAML (docs/configuration.md) that load_yaml() reads back into the same model (ids, source
// file and line numbers aside): the process settings at the top level, then the load balancer.
// Values equal to vigil's defaults are left out, except the health monitor's, which are all
// written; the load balancer's name is always written.
std::string to_yaml(const model::Process& process, const model::Config& config);

// What `vigil convert` prints on stdout: a comment block saying where the config came from and
// listing every warning of the load (each directive that could not be carried over, with its
// line), then to_yaml() of the config. When the load failed (result.config is empty) the text is
// only the comment block, listing the errors too, and the caller should exit non-zero.
std::string convert_report(const LoadResult& result);

}  // namespace vigil::config
