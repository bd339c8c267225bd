// GET /metrics: the views in Prometheus text exposition format 0.0.4 (families in
// docs/metrics.md). Pure but for process_open_fds and process_max_fds, read from the process at
// the render; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/status_tree.h"

namespace vigil::admin {

// Every load balancer's series in one exposition (each family once). Objects without a name
// (possible through the API) are labelled by their id. `now` dates the ages (seconds since a
// member's last change). The process families come from the first view (the file's).
std::string metrics_text(const std::vector<model::LoadBalancerView>& lbs, model::WallTime now);
std::string metrics_text(const model::LoadBalancerView& lb, model::WallTime now);

// A label value with `\`, `"` and newlines escaped as the exposition format requires, and every
// other control character replaced by U+FFFD.
std::string escape_label_value(std::string_view value);

}  // namespace vigil::admin
