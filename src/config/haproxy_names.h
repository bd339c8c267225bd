// HAProxy's `balance` names for vigil's algorithms: the importer (haproxy/) reads them, and the
// YAML loader suggests vigil's name when a file uses HAProxy's. Constant data; any thread.
#pragma once

#include "model/config.h"

namespace vigil::config {

inline constexpr model::Spelling<model::Algorithm> kHaproxyAlgorithmNames[] = {
    {model::Algorithm::kRoundRobin, "roundrobin"},
    {model::Algorithm::kLeastConnections, "leastconn"},
    {model::Algorithm::kSourceIp, "source"},
};

}  // namespace vigil::config
