// The admin API's routing: one request in, one response out, without sockets, so that every
// route is testable alone. Called by AdminServer on the control thread (the view callback runs
// there); the functions themselves are pure apart from calling it.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/status_tree.h"

namespace vigil::admin {

struct Request {
  std::string_view method;  // "GET"
  std::string_view target;  // "/v2/lbaas/pools?name=masters"
  std::string_view x_auth_token;
  std::string_view authorization;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // beyond Content-Type
};

using ViewSource = std::function<model::LoadBalancerView()>;

struct RouteContext {
  std::string_view token;  // empty: no token configured, every authenticated route answers 401
  const ViewSource& view;  // called only by routes that show state, never for /healthz
  model::WallTime now;
};

Response route(const Request& request, const RouteContext& context);

// Octavia's error shape: {"faultstring": message}.
Response fault(int status, std::string_view message);

}  // namespace vigil::admin
