// ControlPlane: the control thread's state and wiring. It owns the runtime picture of every
// pool and member, runs the health checker and the admin API on one io_context, turns health
// results into Octavia statuses, transition logs and new pool snapshots, and publishes those to
// the workers. Control thread only, except on_connect_failure(), which any worker may call.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/error.h"
#include "model/config.h"
#include "model/status_tree.h"
#include "daemon/runtime.h"
#include "proxy/worker.h"

namespace boost::asio {
class io_context;
}
namespace vigil::health {
class HealthChecker;
struct Event;
}  // namespace vigil::health
namespace vigil::admin {
class AdminServer;
}

namespace vigil::daemon {

struct ServeOptions {
  std::string config_path;
  std::string ready_file;  // written once everything listens: bound addresses as JSON
};

class ControlPlane {
 public:
  ControlPlane(boost::asio::io_context& io, model::Config config, std::string token);
  ~ControlPlane();
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;

  // Binds every listener (one socket per worker), starts workers, the admin API and the checks.
  Result<void> start();
  void stop();

  // Any thread: a worker's connect to a member failed.
  void on_connect_failure(proxy::ConnectFailure failure);

  model::LoadBalancerView view() const;
  std::string ready_json() const;  // {"admin": "...", "listeners": {"api": "127.0.0.1:6443"}}

 private:
  Result<void> bind_listeners(int workers, std::vector<std::vector<proxy::ListenSocket>>& out);
  void resolve_members();
  void on_check(const health::Event& event);
  void handle_connect_failure(const proxy::ConnectFailure& failure);
  void refresh_pool(size_t pool_index, const std::string& cause);
  void publish();
  void close_sessions(const PoolRuntime& pool, const MemberRuntime& member);
  void record_transition(const PoolRuntime& pool, const MemberRuntime& member,
                         model::OperatingStatus before);

  boost::asio::io_context& io_;
  model::Config config_;
  std::string token_;
  std::string lb_id_;
  model::WallTime started_at_;
  SteadyClock clock_;
  std::vector<PoolRuntime> pools_;
  std::unordered_map<std::string, std::pair<size_t, size_t>> index_;  // member id -> pool, member
  std::vector<ListenerRuntime> listeners_;
  std::vector<std::unique_ptr<proxy::Worker>> workers_;
  std::unique_ptr<health::HealthChecker> checker_;
  std::unique_ptr<admin::AdminServer> admin_;
  std::deque<model::Transition> transitions_;
  uint64_t snapshot_version_ = 0;
  bool stopped_ = false;
};

// `vigil serve`: loads the config, runs until SIGTERM/SIGINT. Returns the process exit code.
int serve(const ServeOptions& options);

}  // namespace vigil::daemon
