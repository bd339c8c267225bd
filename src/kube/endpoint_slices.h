// The Kubernetes objects vigil reads to follow a Service's endpoints: an EndpointSliceList (the
// answer to a list) and the lines of a watch stream, as kube-apiserver sends them for
// discovery.k8s.io/v1. Pure: text in, values out, every malformed input a message (these come
// over the network, from a server vigil does not control).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace vigil::kube {

// One address a slice lists, with the port `port` names there. An endpoint without
// conditions.ready, or with ready null, counts as ready, as the API's docs tell consumers to
// read an unknown state; `serving` and `terminating` are not looked at (a master going away is
// taken out by its health checks, and kube-apiserver takes itself out of the slice).
struct Endpoint {
  std::string address;  // an IP literal (the slice's addressType: IPv4 or IPv6)
  uint16_t port = 0;
  bool ready = true;
  auto operator<=>(const Endpoint&) const = default;
};

// The endpoints of one slice for the wanted port: the slice's `ports` entry whose name is
// `port` (or, for digits, whose number is); a slice without it contributes nothing.
using SliceEndpoints = std::vector<Endpoint>;

struct SliceList {
  std::string resource_version;                  // where a watch starts
  std::map<std::string, SliceEndpoints> slices;  // by the slice's name
};

// One event of a watch: ADDED, MODIFIED and DELETED carry a slice; BOOKMARK only moves the
// resourceVersion on; ERROR carries the Status's code (410: the version is too old, list again).
struct WatchEvent {
  enum class Type { kAdded, kModified, kDeleted, kBookmark, kError };
  Type type = Type::kBookmark;
  std::string name;              // the slice's (not for BOOKMARK and ERROR)
  std::string resource_version;  // the object's (not for ERROR)
  SliceEndpoints endpoints;      // for ADDED and MODIFIED
  int code = 0;                  // for ERROR: the Status's code
  std::string message;           // for ERROR: the Status's message
};

// `port`: the name or number of the port to take (members_from.kubernetes.port).
Result<SliceList> parse_slice_list(std::string_view json, std::string_view port);
Result<WatchEvent> parse_watch_event(std::string_view line, std::string_view port);

// Applies an event to the slices known (ADDED, MODIFIED and DELETED; the others change nothing).
void apply_event(std::map<std::string, SliceEndpoints>& slices, const WatchEvent& event);

// The ready endpoints of all slices, each address:port once, sorted: the members vigil runs.
std::vector<Endpoint> ready_endpoints(const std::map<std::string, SliceEndpoints>& slices);

// The path and query that list a Service's slices, and the one that watches them from
// `resource_version` (with bookmarks, and a server-side timeout so that a watch the network
// silently lost is replaced within `timeout_seconds`).
std::string list_target(std::string_view ns, std::string_view service);
std::string watch_target(std::string_view ns, std::string_view service,
                         std::string_view resource_version, int timeout_seconds);

}  // namespace vigil::kube
