// The admin API's request and response, without sockets, and what a route may reach of the
// daemon (RouteContext): shared by the routes (routes.h) and the Octavia API (octavia/). Plain
// values; the callbacks run on the control thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "admin/api_change.h"
#include "admin/session_query.h"
#include "base/error.h"
#include "model/config.h"
#include "model/status_tree.h"

namespace vigil::admin {

class LoginSessions;
class ObjectStore;

struct Request {
  std::string_view method;  // "GET"
  std::string_view target;  // "/v2/lbaas/pools?name=masters"
  std::string_view x_auth_token;
  std::string_view authorization;
  // The project keystonemiddleware puts in front of the Octavia API; empty: none.
  std::string_view x_project_id;
  std::string_view body;  // POST and PUT
  // What the status page's browser sends (login cookie, cross-site guards).
  std::string_view cookie;
  std::string_view host;
  std::string_view origin;
  std::string_view sec_fetch_site;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // beyond Content-Type
  // Set by a route that answers later (it asks the workers): the server calls it with the
  // function that sends the real response, which it must call once, on the control thread.
  // The other fields are then unused.
  std::function<void(std::function<void(Response)>)> later;
};

// Every load balancer the daemon runs: the config file's first, then those of the API.
using ViewsSource = std::function<std::vector<model::LoadBalancerView>()>;
// The same narrowed to the load balancers with a pool that a pool key (admin/pool_key.h) can
// name, each with only those pools and without its listeners: enough to find a member, and it
// costs what those pools hold rather than what the daemon runs.
using PoolViewsSource =
    std::function<std::vector<model::LoadBalancerView>(std::string_view pool_key)>;
// The API's load balancer with this id alone (none when there is no such one): what a write of
// one of its objects needs, at a cost that does not grow with the other load balancers.
using LbViewsSource = std::function<std::vector<model::LoadBalancerView>(std::string_view lb_id)>;

// The daemon's side of an API write: carry out `change` (the API's load balancers it names are
// made anew or removed, the others run on), or refuse with the reason, e.g. "cannot bind
// 127.0.0.1:6443: Address already in use", leaving the running configuration as it was.
using ApplyFn = std::function<Result<void>(const ApiChange& change)>;
// Why vigil does not serve now ("a worker's event loop has not answered for 2400 ms"), or
// nullopt while it does: what /healthz and /readyz report first.
using ServingFn = std::function<std::optional<std::string>()>;
// Re-reads the config file and applies it (POST /v1/reload, like SIGHUP); on success, the
// warnings about what a reload cannot change ("admin.listen changed: it takes a restart").
using ReloadFn = std::function<Result<std::vector<std::string>>()>;
// POST /v1/upgrade: starts the new process; its pid, or why it could not start.
using UpgradeFn = std::function<Result<int>()>;
// Sets (or, with none, clears) an operator's override of the member `member_id` (any member, the
// config file's too): saved in admin.state_file, then carried out at once; `by` says who (for the
// log, also when clearing). The error (the state file cannot be written) leaves the member as it
// was.
using OverrideFn = std::function<Result<void>(
    const std::string& member_id, std::optional<model::AdminOverride> next, std::string_view by)>;

// Runs `render` off the control thread, then `send` with its response on it: for answers whose
// building would stall the loop (routes.cc).
using RenderFn =
    std::function<void(std::function<Response()> render, std::function<void(Response)> send)>;

struct RouteContext {
  std::string_view token;       // empty: no token configured, every authenticated route answers 401
  std::string_view read_token;  // admin.read_token_file: GETs only; empty: none
  // admin.octavia_project: the project of load balancers created without X-Project-Id or a
  // project_id, and of the config file's objects; empty: none ("").
  std::string_view default_project;
  const ViewsSource& views;  // called only by routes that show state, never for /healthz
  // The same, but the config file's pools without their members: what an Octavia write needs
  // (it cannot change them), at a cost that does not grow with them. Null: `views`.
  const ViewsSource* write_views = nullptr;
  // The API's load balancers only: what a write's answer shows, since a write changes API
  // objects only. Null: `write_views` or `views`.
  const ViewsSource* api_views = nullptr;
  // One API load balancer: what a write of a pool, member or monitor that names its object by
  // id is tried on, and what a write's answer shows. Null: `api_views`.
  const LbViewsSource* lb_views = nullptr;
  // The views without each member's last hour, which only the status page draws: what
  // /v1/status and /metrics show, at a third less to copy per member. Null: `views`.
  const ViewsSource* status_views = nullptr;
  const PoolViewsSource* pool_views = nullptr;  // null: `views`
  model::WallTime now;
  ObjectStore* store = nullptr;              // null: the Octavia API cannot create objects (405)
  const ApplyFn* apply = nullptr;            // required with a store
  const ReloadFn* reload = nullptr;          // null: POST /v1/reload answers 405
  const OverrideFn* set_override = nullptr;  // null: member overrides answer 405
  const ServingFn* serving = nullptr;        // null: serving (tests of other routes)
  const std::function<bool()>* stopping = nullptr;  // true: /healthz answers 503
  const UpgradeFn* upgrade = nullptr;               // null: POST /v1/upgrade answers 405
  const ListSessionsFn* list_sessions = nullptr;    // null: /v1/sessions answers 405
  const KillSessionsFn* kill_sessions = nullptr;
  LoginSessions* logins = nullptr;   // null: the page's login form is not offered (404)
  const RenderFn* render = nullptr;  // null: every answer is built on the control thread
};

// Octavia's error shape: {"faultstring": message}.
Response fault(int status, std::string_view message);

}  // namespace vigil::admin
