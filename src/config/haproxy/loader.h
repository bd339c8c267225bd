// Importing haproxy.cfg: HAProxy's configuration, as people already write it for control planes
// (kubeadm's HA guide, OpenShift UPI, Octavia amphorae), read into vigil's model. The mapping of
// each directive, and why vigil ignores the others, is in docs/haproxy.md (generated from
// haproxy/keywords.cc). Pure function; safe to call from any thread; never throws.
#pragma once

#include <string>
#include <string_view>

#include "config/load_result.h"

namespace vigil::config {

// Loads haproxy.cfg text into one model::Config: frontends and listens become listeners (one per
// bind address), backends and listens become pools, server lines members, check settings a
// health monitor. The load balancer is named after the file's stem. Every directive vigil does not
// act on is a warning naming its line; structural problems (a default_backend that does not
// exist, a bad address or time) are errors naming theirs.
LoadResult load_haproxy_cfg(std::string_view text, const std::string& file_name);

}  // namespace vigil::config
