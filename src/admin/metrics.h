// GET /metrics: the view in Prometheus text exposition format 0.0.4. Pure; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/status_tree.h"

namespace vigil::admin {

// Every load balancer's series in one exposition (each family once). Objects without a name
// (possible through the API) are labelled by their id.
std::string metrics_text(const std::vector<model::LoadBalancerView>& lbs);
std::string metrics_text(const model::LoadBalancerView& lb);

// A label value with `\`, `"` and newlines escaped as the exposition format requires.
std::string escape_label_value(std::string_view value);

}  // namespace vigil::admin
