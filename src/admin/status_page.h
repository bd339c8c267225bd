// GET /: a self-contained HTML status page for people (no scripts, no external assets; every
// text escaped), refreshing itself every 5 s. Pure; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/status_tree.h"

namespace vigil::admin {

// Every load balancer, one after the other (the config file's first).
std::string status_page(const std::vector<model::LoadBalancerView>& lbs, model::WallTime now);
std::string status_page(const model::LoadBalancerView& lb, model::WallTime now);

// `&`, `<`, `>`, `"` and `'` as character references.
std::string html_escape(std::string_view text);

}  // namespace vigil::admin
