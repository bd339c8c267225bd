#include "testing/apisim/endpoint_routes.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <utility>

#include "testing/apisim/objects.h"

namespace vigil::apisim {
namespace {

// A parsed request path: which namespace (none: cluster-wide) and which slice (none: the list).
struct SlicePath {
  std::optional<std::string> ns;
  std::optional<std::string> name;
};

std::optional<SlicePath> parse_slice_path(std::string_view rest) {
  constexpr std::string_view kResource = "/endpointslices";
  constexpr std::string_view kNamespaces = "/namespaces/";
  SlicePath path;
  if (rest.starts_with(kNamespaces)) {
    rest.remove_prefix(kNamespaces.size());
    const auto slash = rest.find('/');
    if (slash == 0 || slash == std::string_view::npos) return std::nullopt;
    path.ns = std::string(rest.substr(0, slash));
    rest.remove_prefix(slash);
  }
  if (!rest.starts_with(kResource)) return std::nullopt;
  rest.remove_prefix(kResource.size());
  if (rest.empty() || rest == "/") return path;
  if (!path.ns || rest.find('/', 1) != std::string_view::npos) return std::nullopt;
  path.name = std::string(rest.substr(1));
  return path;
}

std::vector<Slice> selected(const SimState& state, const SliceFilter& filter) {
  std::vector<Slice> slices;
  std::ranges::copy_if(state.endpoint_slices.slices(), std::back_inserter(slices),
                       [&](const Slice& s) { return filter.matches(s); });
  return slices;
}

// A watch opens with ADDED for what is there (no ?resourceVersion, or "0": "any"), else with the
// history after that version, or with the 410 ERROR when the history has forgotten it.
Reply watch(const SimState& state, const Target& target, SliceFilter filter) {
  Reply reply{200, "application/json", "", WatchKind::kEndpointSlices};
  reply.watch_timeout = target.seconds("timeoutSeconds");
  reply.slice_watch.bookmarks = target.is_true("allowWatchBookmarks");
  const std::string version = target.get("resourceVersion").value_or("");
  if (version.empty() || version == "0") {
    for (const Slice& slice : selected(state, filter)) {
      reply.slice_watch.first += endpoint_slice_event({EventType::kAdded, slice});
    }
  } else {
    std::uint64_t from = 0;
    auto [end, ec] = std::from_chars(version.data(), version.data() + version.size(), from);
    if (ec != std::errc() || end != version.data() + version.size()) {
      return status_reply(400, "BadRequest",
                          fmt::format("invalid resource version \"{}\"", version));
    }
    auto events = state.endpoint_slices.since(from);
    if (!events) {
      reply.slice_watch.first = expired_event(from, events.error());
      reply.slice_watch.ends = true;
    } else {
      for (const SliceEvent& event : *events) {
        if (filter.matches(event.slice)) reply.slice_watch.first += endpoint_slice_event(event);
      }
    }
  }
  reply.slice_watch.filter = std::move(filter);
  return reply;
}

// The Status reason kube-apiserver gives with the codes a test may choose.
std::string refused_reason(int code) {
  switch (code) {
    case 403:
      return "Forbidden";
    case 429:
      return "TooManyRequests";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return code < 500 ? "BadRequest" : "InternalError";
  }
}

// "0" (or empty) ends the refusal; otherwise an error code, 400..599.
std::optional<int> refusal_code(std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (!text.empty() && (ec != std::errc() || end != text.data() + text.size())) return std::nullopt;
  if (value != 0 && (value < 400 || value > 599)) return std::nullopt;
  return value;
}

}  // namespace

Reply endpoint_slice_api(const SimState& state, const Target& target) {
  std::string_view rest = target.path.substr(kDiscoveryV1Path.size());
  if (rest.empty() || rest == "/") return json_reply(200, discovery_v1_resources());
  const auto path = parse_slice_path(rest);
  if (!path) {
    return status_reply(404, "NotFound", "the server could not find the requested resource");
  }
  if (state.slices_refused != 0) {
    return status_reply(state.slices_refused, refused_reason(state.slices_refused),
                        "endpointslices.discovery.k8s.io is refused (/sim/endpoints/refuse)");
  }
  SliceFilter filter;
  for (auto [key, selector] :
       {std::pair{"labelSelector", &filter.labels}, std::pair{"fieldSelector", &filter.fields}}) {
    auto parsed = Selector::parse(target.get(key).value_or(""));
    if (!parsed) return status_reply(400, "BadRequest", parsed.error().message);
    *selector = std::move(*parsed);
  }
  if (path->ns) filter.fields.require("metadata.namespace", *path->ns);
  if (path->name) {
    filter.fields.require("metadata.name", *path->name);
    const auto found = selected(state, filter);
    if (found.empty()) {
      return status_reply(
          404, "NotFound",
          fmt::format("endpointslices.discovery.k8s.io \"{}\" not found", *path->name));
    }
    return json_reply(200, endpoint_slice_object(found.front()));
  }
  if (target.is_true("watch")) return watch(state, target, std::move(filter));
  return json_reply(200, endpoint_slice_list(selected(state, filter), state.resource_version));
}

Reply endpoint_controls(SimState& state, std::string_view method, const Target& target) {
  if (method != "POST" && method != "PUT") return status_reply(405, "MethodNotAllowed", "use POST");
  Reply reply;
  if (target.path == "/sim/endpoints") {
    const auto list = target.get("set");
    if (!list) return status_reply(400, "BadRequest", "want ?set=ADDR:PORT[,ADDR:PORT]");
    auto endpoints = parse_endpoints(*list);
    if (!endpoints) return status_reply(400, "BadRequest", endpoints.error().message);
    reply.slice_events = state.endpoint_slices.set(std::move(*endpoints), state.resource_version);
  } else if (target.path == "/sim/endpoints/break") {
    reply.break_slice_watches = true;
  } else if (target.path == "/sim/endpoints/compact") {
    state.endpoint_slices.compact(state.resource_version);
  } else if (target.path == "/sim/endpoints/refuse") {
    const auto code = refusal_code(target.get("code").value_or(""));
    if (!code)
      return status_reply(400, "BadRequest", "want ?code=N with N in 400..599, or 0 to end");
    state.slices_refused = *code;
    // The watches open now are refused too: they end, and their clients' next list is refused.
    reply.break_slice_watches = *code != 0;
  } else {
    return status_reply(404, "NotFound", "unknown /sim control");
  }
  return reply;
}

}  // namespace vigil::apisim
