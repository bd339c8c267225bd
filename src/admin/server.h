// AdminServer: the admin HTTP API (Octavia v2 subset, /v1/status, /metrics, /healthz and the
// status page) on the control thread's io_context. Control thread only: every method, and every
// call of the daemon, run on the thread that runs `io`. Requires: `io` outlives the server.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "admin/daemon.h"
#include "admin/routes.h"
#include "base/error.h"
#include "model/status_tree.h"

namespace boost::asio {
class io_context;
class thread_pool;
}  // namespace boost::asio

namespace vigil::admin {

struct Options {
  std::string listen = "127.0.0.1:8404";  // "addr:port", "[::1]:port"; port 0 = kernel picks
  std::string token;                      // empty: every authenticated route answers 401
  std::string read_token;                 // admin.read_token_file: GETs only; empty: none
  std::string default_project;            // admin.octavia_project (http.h RouteContext)
  std::string public_endpoint;            // admin.octavia_endpoint (http.h RouteContext)
  bool trust_forwarded_headers = false;   // admin.trust_forwarded_headers (forwarded.h)
  size_t page_max_limit = 1000;           // admin.octavia_pagination_max_limit (json_page.h)
  model::AdminMetrics metrics;            // admin.metrics (http.h RouteContext)
  // Limits; tests shorten them.
  std::chrono::milliseconds idle_timeout{60'000};  // a connection idle this long is closed
  // A connection that has not sent a whole request head this long after it opened (or after
  // the first byte of its next request) is closed: slowloris clients hold nothing for long.
  std::chrono::milliseconds header_timeout{10'000};
  // At either cap a new connection evicts the oldest one that is idle or has not sent a whole
  // request yet (of its address, or of all), so that /healthz always gets through; only when
  // every one is being answered is the new one closed at once.
  size_t max_connections = 64;
  size_t max_connections_per_address = 16;
  // The objects created through the Octavia API (owned by the daemon, outliving the server);
  // null: the API creates nothing and shows the config file's objects only.
  ObjectStore* store = nullptr;
  // admin.store type etcd: the store that `store` caches (owned by the daemon, outliving the
  // server); null: `store` is the truth.
  SharedStore* shared = nullptr;
  // A listening socket to serve on instead of binding `listen` (an upgrade hands it over);
  // start() owns it from then on. -1: bind.
  int inherited_fd = -1;
  // A listening Unix socket (admin.socket) to serve the same routes on, bound by the daemon or
  // handed over by an upgrade; start() owns it from then on. -1: none. Its connections carry the
  // peer's user name from the kernel (Request::peer_user).
  int unix_fd = -1;
};

struct ServerState;  // Asio objects and the open sessions, in server.cc

class AdminServer {
 public:
  // `daemon`: what the routes show and carry out (admin/daemon.h); it outlives the server.
  AdminServer(boost::asio::io_context& io, Options options, Daemon& daemon);
  ~AdminServer();  // stops
  AdminServer(const AdminServer&) = delete;
  AdminServer& operator=(const AdminServer&) = delete;

  // Binds and listens; the error names the address, e.g.
  // "cannot listen on 127.0.0.1:8404: Address already in use".
  Result<void> start();
  // The address actually bound, "127.0.0.1:41234"; empty before start().
  std::string bound() const;
  // The listening socket, -1 when not listening: what an upgrade hands to the new process.
  int listening_fd() const;
  // The Unix socket (Options::unix_fd), -1 when there is none: handed over by an upgrade too.
  int unix_listening_fd() const;
  // On reload; applies to the next request. A changed token signs out the page's sessions.
  void set_token(std::string token);
  void set_read_token(std::string token);
  void set_default_project(std::string project);
  void set_public_endpoint(std::string endpoint, bool trust_forwarded_headers);
  void set_page_max_limit(size_t limit);
  void set_metrics(model::AdminMetrics metrics);
  size_t connections() const;  // open now; tests wait on it
  // Requests begun since the server was made, and whether one is being answered now: how the
  // daemon tells a quiet API (daemon/heap_trim.cc).
  uint64_t requests() const;
  bool answering() const;
  // Closes the listener and every open connection. Pending handlers finish on `io` later.
  void stop();

 private:
  Result<void> start_tcp();

  std::shared_ptr<ServerState> state_;
  // Builds the large answers (/metrics, /v1/status, Octavia lists) off the control thread; joined
  // when the server is destroyed. Sessions that outlive the server render on the control thread.
  std::shared_ptr<boost::asio::thread_pool> renderer_;
};

}  // namespace vigil::admin
