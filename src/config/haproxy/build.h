// What the steps that turn the draft into vigil's model share: haproxy/build.cc builds the pools,
// members and listeners, haproxy/monitor.cc a pool's health monitor. Internal to config/.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "config/haproxy/draft.h"
#include "model/config.h"

namespace vigil::config::haproxy {

std::string quote(std::string_view name);        // "api"
std::string kind_and_name(const ProxyDraft& x);  // backend "api"

// The monitor of backend `b`, taken from its first checked server and its check directives, as
// HAProxy reads them; none (NO_MONITOR) when no server has `check`. Also gives `pool`'s members
// the monitor port and address of an `http-check connect` or `tcp-check connect`.
std::optional<model::HealthMonitor> build_monitor(Parser& p, const ProxyDraft& b,
                                                  model::Pool& pool);

// The session persistence of backend `b` (haproxy/stick_keywords.cc): SOURCE_IP when it sticks
// clients on `src` in its own table of addresses; none, with a warning for each rule or table
// that has no effect, otherwise.
model::SessionPersistence build_persistence(Parser& p, const ProxyDraft& b);

}  // namespace vigil::config::haproxy
