// Request routing: the simulator's answers as plain values, free of Asio and Beast so they stay
// cheap to compile and easy to read. Called on the server's single thread only.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "testing/apisim/endpoint_slices.h"
#include "testing/apisim/slice_watchers.h"
#include "testing/apisim/state.h"

namespace vigil::apisim {

struct Request {
  std::string_view method;  // "GET", "POST", ...
  std::string_view target;  // path and query, e.g. "/readyz?verbose"
};

enum class WatchKind {
  kNone,
  kNodes,           // node events (see watch_*) every watch interval
  kEndpointSlices,  // slice events as they happen (see SliceWatch)
};

// How an EndpointSlice watch opens and what it wants.
struct SliceWatch {
  std::string first;       // ADDED per slice, the events since ?resourceVersion, or the 410 ERROR
  bool ends = false;       // nothing follows `first` (the 410)
  bool bookmarks = false;  // ?allowWatchBookmarks=true: a BOOKMARK every watch interval
  SliceFilter filter;      // whose events it gets
};

struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  WatchKind watch = WatchKind::kNone;  // stream events instead of body
  Duration watch_timeout{};  // from ?timeoutSeconds; zero: until the client or shutdown ends it
  SliceWatch slice_watch;    // for kEndpointSlices
  // What a /sim/endpoints control does to the open EndpointSlice watches; carried out by the
  // server (ServerContext::answer), which knows them.
  std::vector<SliceEvent> slice_events;
  bool break_slice_watches = false;
};

Reply route(SimState& state, const Request& request, TimePoint now);

Reply json_reply(int status, const boost::json::value& value);
// A metav1.Status answer, e.g. status_reply(404, "NotFound", "...").
Reply status_reply(int code, std::string_view reason, std::string_view message);

// The nodes this server knows: master-01..03, plus its own name.
std::vector<std::string> node_names(const SimState& state);
// The first events of a watch: one ADDED line per node.
std::string watch_added(const SimState& state);
// The next event of a watch: a MODIFIED line for the tick-th node (round robin), with a new
// resourceVersion.
std::string watch_modified(SimState& state, std::size_t tick);

}  // namespace vigil::apisim
