// Daemon: what the admin API may ask of the daemon that runs it, one method per question or
// command, implemented by daemon::AdminDaemon over the ControlPlane and by a fake in the tests
// (fake_daemon_test.h). The admin API calls it on the control thread only; the daemon outlives
// the AdminServer that calls it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admin/api_change.h"
#include "admin/session_query.h"
#include "base/error.h"
#include "model/config.h"
#include "model/status_tree.h"

namespace vigil::admin {

// Which views to build, so that a route pays for what it shows rather than for what the daemon
// runs. Without `file_members` the config file's pools come without their members: what an
// Octavia write needs (it cannot change them), whose cost must not grow with the file's pools.
// With a `pool_key` (admin/pool_key.h) only the load balancers with a pool it can name, each with
// those pools only and no listeners: enough to find a member. The API's load balancers, whose
// names people gave live in the object store, come with all their pools. With a `member_id`, the
// API's load balancer `lb_id` comes with that member alone (none when no member has that id):
// what an Octavia write of one member needs, at a cost that does not grow with its pool.
struct ViewScope {
  bool file = true;  // false: the API's load balancers only
  bool api = true;   // false: the config file's load balancers only
  // Only the API's load balancer with this id (none when there is no such one); requires !file.
  std::optional<std::string_view> lb_id;
  bool file_members = true;
  bool history = true;  // false: the members' last hour left out (only the status page draws it)
  std::optional<std::string_view> pool_key;
  std::optional<std::string_view> member_id;  // requires lb_id
};

class Daemon {
 public:
  virtual ~Daemon() = default;

  // The load balancers the daemon runs, the config file's first, as `scope` narrows them. An
  // implementation may show more than the scope asks (never less): the routes look objects up by
  // id and name in what they get.
  virtual std::vector<model::LoadBalancerView> views(const ViewScope& scope) const = 0;
  // A slice of views(scope), appended to `out`: those of at most `count` load balancers after
  // `cursor` (0: from the first) in the order the daemon runs them. Returns the cursor of the
  // next slice, 0 after the last. A load balancer that runs from the first slice to the last is
  // in exactly one; one made or removed meanwhile may be in none. The routes that show every load
  // balancer take them so, a slice per turn of the control thread, so that a write waits for a
  // slice rather than for all of them (routes.cc). An implementation without slices gives all.
  virtual uint64_t views_after(const ViewScope& scope, uint64_t /*cursor*/, size_t /*count*/,
                               std::vector<model::LoadBalancerView>& out) const {
    std::ranges::move(views(scope), std::back_inserter(out));
    return 0;
  }
  // Carries out an API write: the API's load balancers `change` names are made anew or removed,
  // the others run on. Or refuses with the reason ("cannot bind 127.0.0.1:6443: Address already
  // in use"), leaving the running configuration as it was.
  virtual Result<void> apply(const ApiChange& change) = 0;
  // Re-reads the config file and applies it (POST /v1/reload, like SIGHUP); on success, the
  // warnings about what a reload cannot change ("admin.listen changed: it takes a restart").
  virtual Result<std::vector<std::string>> reload() = 0;
  // Sets (or, with none, clears) an operator's override of the member `member_id` (the config
  // file's members too): saved in admin.state_file, then carried out at once; `by` says who (for
  // the log). The error (the state file cannot be written) leaves the member as it was.
  virtual Result<void> set_override(const std::string& member_id,
                                    std::optional<model::AdminOverride> next,
                                    std::string_view by) = 0;
  // Why vigil does not serve now ("a worker's event loop has not answered for 2400 ms"), or
  // nullopt while it does: what /healthz and /readyz report first.
  virtual std::optional<std::string> serving() const = 0;
  // True while vigil stops gracefully: /healthz answers 503 so that traffic moves away.
  virtual bool stopping() const = 0;
  // POST /v1/upgrade: starts the new process; its pid, or why it could not start.
  virtual Result<int> upgrade() = 0;
  // Lists the sessions to the members named by id (every session when none are given), at most
  // `limit`. The workers answer later: `done` runs on the control thread, with an error (a worker
  // that did not answer in time) for a 503.
  virtual void list_sessions(std::optional<std::vector<std::string>> member_ids, size_t limit,
                             std::function<void(Result<SessionTable>)> done) = 0;
  // Closes the sessions to the members named by id; `done` gets how many were closed.
  virtual void kill_sessions(const std::vector<std::string>& member_ids,
                             std::function<void(Result<size_t>)> done) = 0;
};

}  // namespace vigil::admin
