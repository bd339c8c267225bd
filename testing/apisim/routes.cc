#include "testing/apisim/routes.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <charconv>
#include <optional>
#include <utility>

#include "testing/apisim/endpoint_routes.h"
#include "testing/apisim/objects.h"
#include "testing/apisim/target.h"

namespace vigil::apisim {
namespace {

namespace json = boost::json;

constexpr std::string_view kText = "text/plain; charset=utf-8";

// The checks kube-apiserver lists, in its order. /livez and /healthz leave out the ones that only
// concern readiness.
constexpr std::array<std::string_view, 7> kReadyChecks = {
    "ping",           "log",           "etcd",
    "etcd-readiness", "informer-sync", "poststarthook/start-apiextensions-informers",
    "shutdown"};
constexpr std::array<std::string_view, 4> kLiveChecks = {
    "ping", "log", "etcd", "poststarthook/start-apiextensions-informers"};

Reply text(int status, std::string body) { return {status, std::string(kText), std::move(body)}; }

// Whether a readyz check fails right now: forced by a test, warming up, or shutting down.
bool readyz_check_fails(const SimState& state, std::string_view check, TimePoint now) {
  if (state.failing.contains(std::string(check))) return true;
  if (now < state.warmup_until &&
      (check == "informer-sync" || check == "poststarthook/start-apiextensions-informers")) {
    return true;
  }
  return check == "shutdown" && state.shutting_down;
}

// /readyz, /livez, /healthz and their /<endpoint>/<check> forms, answered like kube-apiserver:
// "ok", or a [+]/[-] line per check when verbose or failing.
Reply health(const SimState& state, std::string_view endpoint, const Target& target,
             TimePoint now) {
  const bool readyz = endpoint == "readyz";
  std::vector<std::string_view> checks;
  if (readyz) {
    checks.assign(kReadyChecks.begin(), kReadyChecks.end());
    for (const std::string& extra : state.failing) {
      if (std::ranges::find(checks, extra) == checks.end()) checks.push_back(extra);
    }
  } else {
    checks.assign(kLiveChecks.begin(), kLiveChecks.end());
  }
  auto fails = [&](std::string_view check) {
    return readyz && readyz_check_fails(state, check, now);
  };

  const std::string prefix = "/" + std::string(endpoint) + "/";
  if (target.path.starts_with(prefix)) {  // a single check, e.g. /readyz/etcd
    const std::string_view check = target.path.substr(prefix.size());
    if (std::ranges::find(checks, check) == checks.end()) return text(404, "404 page not found\n");
    if (fails(check)) return text(500, "internal server error: reason withheld\n");
    return text(200, "ok");
  }

  const auto excluded = target.all("exclude");
  auto is_excluded = [&](std::string_view c) {
    return std::ranges::find(excluded, c) != excluded.end();
  };
  bool failed = false;
  std::string listing;
  for (std::string_view check : checks) {
    if (is_excluded(check)) {
      listing += fmt::format("[+]{} excluded: ok\n", check);
    } else if (fails(check)) {
      failed = true;
      listing += fmt::format("[-]{} failed: reason withheld\n", check);
    } else {
      listing += fmt::format("[+]{} ok\n", check);
    }
  }
  int status = failed ? 500 : 200;
  if (readyz && state.forced_status != 0) status = state.forced_status;
  const bool success = status >= 200 && status < 300;
  if (success && !target.has("verbose")) return text(status, "ok");
  return text(status,
              fmt::format("{}{} check {}\n", listing, endpoint, success ? "passed" : "failed"));
}

constexpr std::pair<std::string_view, ConnectionFault> kFaults[] = {
    {"none", ConnectionFault::kNone},
    {"reset", ConnectionFault::kReset},
    {"read-reset", ConnectionFault::kReadThenReset}};

std::string_view fault_name(ConnectionFault fault) {
  for (const auto& [name, value] : kFaults) {
    if (value == fault) return name;
  }
  return "none";
}

json::value sim_state_json(const SimState& state, TimePoint now) {
  json::array failing;
  for (const std::string& f : state.failing) failing.emplace_back(f);
  return json::object{
      {"name", state.name},
      {"address", state.address},
      {"warmingUp", now < state.warmup_until},
      {"shuttingDown", state.shutting_down},
      {"failingReadyzChecks", std::move(failing)},
      {"forcedReadyzStatus", state.forced_status},
      {"connectionFault", fault_name(state.fault)},
      {"resourceVersion", std::to_string(state.resource_version)},
      {"endpoints", format_endpoints(state.endpoint_slices.endpoints())},
      {"endpointSliceHistoryStart", std::to_string(state.endpoint_slices.history_start())},
      {"endpointSliceWatches", state.slice_watchers.size()},
      {"endpointSlicesRefused", state.slices_refused}};
}

// Test controls: POST /sim/readyz?fail=a,b (empty clears), POST /sim/status?code=N (0 or empty
// clears), POST /sim/fault?mode=none|reset|read-reset (new connections only), GET /sim/state,
// and the /sim/endpoints ones (endpoint_routes.h).
Reply sim(SimState& state, std::string_view method, const Target& target, TimePoint now) {
  if (target.path == "/sim/state") {
    if (method != "GET") return status_reply(405, "MethodNotAllowed", "use GET");
    return json_reply(200, sim_state_json(state, now));
  }
  if (target.path == "/sim/endpoints" || target.path.starts_with("/sim/endpoints/")) {
    Reply reply = endpoint_controls(state, method, target);
    if (reply.status == 200) reply.body = json::serialize(sim_state_json(state, now));
    return reply;
  }
  if (target.path != "/sim/readyz" && target.path != "/sim/status" && target.path != "/sim/fault") {
    return status_reply(404, "NotFound", "unknown /sim control");
  }
  if (method != "POST" && method != "PUT") return status_reply(405, "MethodNotAllowed", "use POST");
  if (target.path == "/sim/fault") {
    const std::string mode = target.get("mode").value_or("");
    const auto* found = std::ranges::find(kFaults, mode, [](const auto& f) { return f.first; });
    if (found == std::end(kFaults)) {
      return status_reply(400, "BadRequest", "want ?mode=none, reset or read-reset");
    }
    state.fault = found->second;
  } else if (target.path == "/sim/readyz") {
    if (!target.has("fail")) return status_reply(400, "BadRequest", "want ?fail=CHECK[,CHECK]");
    state.failing.clear();
    for (const std::string& value : target.all("fail")) {
      std::string_view rest = value;
      while (!rest.empty()) {
        const auto comma = rest.find(',');
        if (auto name = rest.substr(0, comma); !name.empty()) state.failing.emplace(name);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      }
    }
  } else {
    const std::string code = target.get("code").value_or("");
    int value = 0;
    auto [end, ec] = std::from_chars(code.data(), code.data() + code.size(), value);
    if (!code.empty() && (ec != std::errc() || end != code.data() + code.size() ||
                          (value != 0 && (value < 100 || value > 599)))) {
      return status_reply(400, "BadRequest", "want ?code=N with N in 100..599, or 0 to clear");
    }
    state.forced_status = value;
  }
  return json_reply(200, sim_state_json(state, now));
}

// /api and /apis discovery, and the nodes resource.
Reply api(SimState& state, const Target& target) {
  const std::string_view path = target.path;
  if (path == "/api" || path == "/api/") return json_reply(200, api_versions(state.address));
  if (path == "/apis" || path == "/apis/") return json_reply(200, api_group_list());
  if (path == "/api/v1" || path == "/api/v1/") return json_reply(200, core_v1_resources());
  if (path == kDiscoveryV1Path || path.starts_with(std::string(kDiscoveryV1Path) + "/")) {
    return endpoint_slice_api(state, target);
  }
  if (path == "/api/v1/nodes") {
    if (target.is_true("watch")) {
      Reply reply{200, "application/json", "", WatchKind::kNodes};
      reply.watch_timeout = target.seconds("timeoutSeconds");
      return reply;
    }
    return json_reply(200, node_list(node_names(state), state.resource_version));
  }
  constexpr std::string_view kNodePrefix = "/api/v1/nodes/";
  if (path.starts_with(kNodePrefix)) {
    const std::string name(path.substr(kNodePrefix.size()));
    const auto names = node_names(state);
    if (std::ranges::find(names, name) == names.end()) {
      return status_reply(404, "NotFound", fmt::format("nodes \"{}\" not found", name));
    }
    return json_reply(200, node_object(name, state.resource_version));
  }
  return status_reply(404, "NotFound", "the server could not find the requested resource");
}

}  // namespace

Reply json_reply(int status, const json::value& value) {
  return {status, "application/json", json::serialize(value)};
}

Reply status_reply(int code, std::string_view reason, std::string_view message) {
  return json_reply(code, status_object(code, reason, message));
}

std::vector<std::string> node_names(const SimState& state) {
  std::vector<std::string> names = {"master-01", "master-02", "master-03"};
  if (std::ranges::find(names, state.name) == names.end()) names.push_back(state.name);
  return names;
}

std::string watch_added(const SimState& state) {
  std::string events;
  for (const std::string& name : node_names(state)) {
    events += watch_event("ADDED", name, state.resource_version);
  }
  return events;
}

std::string watch_modified(SimState& state, std::size_t tick) {
  const auto names = node_names(state);
  return watch_event("MODIFIED", names[tick % names.size()], ++state.resource_version);
}

Reply route(SimState& state, const Request& request, TimePoint now) {
  const Target target = parse_target(request.target);
  const std::string_view path = target.path;
  if (path.starts_with("/sim/")) return sim(state, request.method, target, now);
  if (request.method != "GET" && request.method != "HEAD") {
    return status_reply(405, "MethodNotAllowed", "the server does not allow this method");
  }
  for (std::string_view endpoint : {"readyz", "livez", "healthz"}) {
    const std::string base = "/" + std::string(endpoint);
    if (path == base || path.starts_with(base + "/")) return health(state, endpoint, target, now);
  }
  if (path == "/version" || path == "/version/") return json_reply(200, version_object());
  if (path == "/api" || path.starts_with("/api/") || path == "/apis" ||
      path.starts_with("/apis/")) {
    // During warmup kube-apiserver's authenticators are not ready yet.
    if (now < state.warmup_until) return status_reply(401, "Unauthorized", "Unauthorized");
    return api(state, target);
  }
  return status_reply(404, "NotFound", "the server could not find the requested resource");
}

}  // namespace vigil::apisim
