// The admin API's request and response, without sockets, and what a route may reach of the
// daemon (RouteContext): shared by the routes (routes.h) and the Octavia API (octavia/). Plain
// values; the daemon is called on the control thread.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "admin/daemon.h"
#include "model/process.h"
#include "model/status_tree.h"

namespace vigil::admin {

class LoginSessions;
class SignInThrottle;
class ObjectStore;
class SharedStore;

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
  // What a reverse proxy says the client used (forwarded.h); read only when
  // admin.trust_forwarded_headers is on.
  std::string_view forwarded;
  std::string_view x_forwarded_proto;
  std::string_view x_forwarded_host;
  std::string_view x_forwarded_prefix;
  std::string_view accept;  // JSON clients of `/` get Octavia's version document
  std::string_view origin;
  std::string_view sec_fetch_site;
  // Who sent it, as /login's throttle counts sources: an IPv4 address, or an IPv6 /64.
  std::string_view source;
  // Over the admin Unix socket, the user the kernel names (SO_PEERCRED): it, not what the client
  // claims, names who set an override. Empty over TCP.
  std::string_view peer_user;
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
  // Set by a route whose body is made as it is sent (/metrics): after `body`, the server asks it
  // for each next piece, on the render thread and one call at a time, until a piece is empty; the
  // body goes out chunked. Null: `body` is all of it.
  std::function<std::string()> stream;
};

// `r`'s whole body: `body` and, when it streams, every piece after it (the stream is spent). For
// tests and callers that hold the whole answer anyway.
std::string whole_body(Response& r);

// Runs `render` off the control thread, then `send` with its response on it: for answers whose
// building would stall the loop (routes.cc).
using RenderFn =
    std::function<void(std::function<Response()> render, std::function<void(Response)> send)>;
// Runs `f` on the control thread, in a later turn of its loop: what was queued meanwhile (an API
// write) runs first.
using DeferFn = std::function<void(std::function<void()> f)>;

struct RouteContext {
  std::string_view token;       // empty: no token configured, every authenticated route answers 401
  std::string_view read_token;  // admin.read_token_file: GETs only; empty: none
  // admin.octavia_project: the project of load balancers created without X-Project-Id or a
  // project_id, and of the config file's objects; empty: none ("").
  std::string_view default_project;
  // admin.octavia_endpoint: the Octavia API's public URL behind a proxy
  // ("https://cloud.example/load-balancer"), what its links start with; empty: the request's
  // scheme and Host.
  std::string_view public_endpoint;
  // admin.trust_forwarded_headers: without public_endpoint, links follow the request's
  // Forwarded / X-Forwarded-* headers (forwarded.h).
  bool trust_forwarded = false;
  // admin.octavia_pagination_max_limit: the Octavia API's longest page (json_page.h).
  size_t page_max_limit = 1000;
  // What the routes ask of the daemon; called only by routes that show state or change it (never
  // its views for /healthz).
  Daemon& daemon;
  model::WallTime now;
  ObjectStore* store = nullptr;  // null: the Octavia API cannot create objects (405)
  // admin.store type etcd: the store's truth is etcd, and `store` is this node's cache of it;
  // writes take their turn (queued_write) and are answered once etcd has committed them.
  SharedStore* shared = nullptr;
  bool in_turn = false;                // this write's turn has come (set by queued_write)
  LoginSessions* logins = nullptr;     // null: the page's login form is not offered (404)
  SignInThrottle* throttle = nullptr;  // null: /login is not throttled (tests)
  const RenderFn* render = nullptr;    // null: every answer is built on the control thread
  const DeferFn* defer = nullptr;      // null: the views are taken in one turn (routes.cc)
  // admin.metrics: what /metrics serves to a scrape that does not say (its scopes, the members'
  // check-duration histograms).
  model::AdminMetrics metrics;
};

// Octavia's error shape: {"faultstring": message}.
Response fault(int status, std::string_view message);

// The shape of the errors Octavia's web framework answers before its API code runs (an unknown
// path): {"code": 404, "title": "Not Found", "description": ...}, webob's JSON error body.
Response framework_fault(int status, std::string_view title, std::string_view description);

}  // namespace vigil::admin
