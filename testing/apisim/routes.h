// Request routing: the simulator's answers as plain values, free of Asio and Beast so they stay
// cheap to compile and easy to read. Called on the server's single thread only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "testing/apisim/state.h"

namespace vigil::apisim {

struct Request {
  std::string_view method;  // "GET", "POST", ...
  std::string_view target;  // path and query, e.g. "/readyz?verbose"
};

struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  bool watch = false;        // stream node watch events (see watch_*) instead of body
  Duration watch_timeout{};  // from ?timeoutSeconds; zero: until the client or shutdown ends it
};

Reply route(SimState& state, const Request& request, TimePoint now);

// The nodes this server knows: master-01..03, plus its own name.
std::vector<std::string> node_names(const SimState& state);
// The first events of a watch: one ADDED line per node.
std::string watch_added(const SimState& state);
// The next event of a watch: a MODIFIED line for the tick-th node (round robin), with a new
// resourceVersion.
std::string watch_modified(SimState& state, std::size_t tick);

}  // namespace vigil::apisim
