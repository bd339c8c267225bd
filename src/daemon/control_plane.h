// ControlPlane: the control thread's wiring. It runs the workers, the health checker, Pools (the
// pools and members, and what health does to them: pools.h), Listeners (listeners.h) and the
// admin API on one io_context, owns the load balancers, and applies configuration changes live
// (reload of the file, writes through the API), upgrades and stops. Control thread only.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "admin/api_change.h"
#include "admin/daemon.h"
#include "admin/octavia/shared_store.h"
#include "admin/session_query.h"
#include "admin/token_files.h"
#include "base/clock.h"
#include "base/error.h"
#include "base/string_map.h"
#include "daemon/address_loss.h"
#include "daemon/event_log.h"
#include "daemon/listeners.h"
#include "daemon/peer_sync.h"
#include "daemon/pools.h"
#include "daemon/redirects.h"
#include "daemon/runtime.h"
#include "daemon/tickler.h"
#include "daemon/transition_file.h"
#include "daemon/upgrade.h"
#include "daemon/worker_sink.h"
#include "model/config.h"
#include "model/process.h"
#include "model/status_tree.h"
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
class ObjectStore;
}  // namespace vigil::admin

namespace vigil::config {
class BindIndex;
}  // namespace vigil::config

namespace vigil::daemon {

class AdminDaemon;
class ApiMembers;

struct ServeOptions {
  std::string config_path;
  std::string ready_file;  // written once everything listens: bound addresses as JSON
  // Overrides admin.token_file (an haproxy.cfg has no place for it).
  std::string token_file;
};

class ControlPlane {
 public:
  // `process` are the config file's process settings, `file_config` its load balancer; `tokens`
  // the admin tokens the settings name. Every timer of the control thread is made by `timers`,
  // on `clock`. Requires: `io`, the clocks and `timers` outlive this.
  ControlPlane(boost::asio::io_context& io, const Clock& clock, TimerSource& timers,
               const WallClock& wall, ServeOptions options, model::Process process,
               model::Config file_config, admin::AdminTokens tokens);
  ~ControlPlane();
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;

  // Starts the workers and the checks, binds every listener, then starts the admin API.
  Result<void> start();
  // Closes the listeners, the admin API and every session now; returns how many were cut.
  size_t stop();
  // After stop(): writes the API's state file whole when its journal holds writes (ObjectStore::
  // fold()), so that the state file alone has every object, as a vigil from before the journal
  // reads it (a downgrade). Only when no other process can be writing the two files: not after
  // this process started an upgrade (its new process took them over, or was stopped while
  // starting), nor in a process an upgrade started that never said it was ready (its parent
  // kept them). `ready_told`: this process told its parent it was ready.
  void fold_state(bool ready_told);
  // After stop(): removes admin.socket's file, under fold_state()'s rule: not after this process
  // started an upgrade (the new process serves on the same socket), nor in a process an upgrade
  // started that never said it was ready (its parent still serves on it). A start that failed
  // leaves a file that the next start replaces as stale.
  void remove_admin_socket(bool ready_told);

  // A graceful stop (SIGTERM; graceful_stop.cc): every listener closes at once (new connects
  // are refused), established sessions go on, as do the checks and the admin API (/healthz
  // answers 503). `finished` runs on the control thread once no session is left or `grace` ran
  // out; stop() then cuts what is left. Configuration changes are refused from now on.
  void begin_graceful_stop(Duration grace, std::function<void()> finished);
  bool stopping() const { return graceful_ != nullptr || stopped_; }
  Duration shutdown_grace() const { return process_.shutdown_grace; }

  // `vigil upgrade`, SIGUSR2 (upgrade_control.cc): starts the binary on disk with the same
  // arguments and hands it the listening sockets; once it says it is ready this process stops
  // accepting and stops gracefully. Until then, and if it fails, this one serves. Returns the
  // new process's pid.
  Result<int> upgrade();
  // Sessions held when the listeners closed (0 before a graceful stop's tally is in).
  size_t sessions_at_stop() const { return graceful_ ? graceful_->sessions : 0; }

  // Makes `load_balancers` (the file's first, then the API's) the running configuration. Binds
  // new listeners first, so that a failure changes nothing. Members that stay keep their health
  // state and sessions; removed members' sessions drain; removed listeners stop accepting.
  Result<void> apply(std::vector<model::Config> load_balancers);
  // Re-reads the config file and applies it with the API's objects; on any error the running
  // configuration stays and the error is returned (and logged). On success, warnings (logged
  // too) about changes only a restart carries out (process_reload.h): admin.listen,
  // admin.state_file.
  Result<std::vector<std::string>> reload();
  // Carries out an API write next to the file's load balancer: the API's load balancers it names
  // are made anew or removed, the others run on untouched.
  Result<void> apply_api(admin::ApiChange change);

  // The pools and members (overrides, first checks); from start() on.
  Pools& pools() { return *pools_; }

  // GET /v1/sessions and POST /v1/sessions/kill (sessions.cc): each worker is asked through its
  // mailbox and `done` runs on the control thread once all have answered, or with an error once
  // one has not within a bound. Members are named by id; unknown ids are skipped.
  void list_sessions(std::optional<std::vector<std::string>> member_ids, size_t limit,
                     std::function<void(Result<admin::SessionTable>)> done);
  void kill_sessions(const std::vector<std::string>& member_ids,
                     std::function<void(Result<size_t>)> done);

  // Sends every worker a ping; true when each answered the previous one (none sent yet: true).
  // The liveness tick (liveness.cc) is its only caller: two callers would cut each other's rounds.
  bool ping_workers();
  // Why vigil does not serve now (stopping; a worker's loop silent for over 2 s), or nullopt:
  // what /healthz, /readyz and the systemd watchdog go by (liveness.cc).
  std::optional<std::string> serving_problem() const;
  // The listeners not bound, with why: "listener api: cannot bind ...: Address already in use".
  // The file's only: a listener created through the API whose port is taken (another tenant's
  // load balancer, come back from the state file at a restart) shows ERROR on its own, and does
  // not take the node, and with it the cluster's own listener, out of keepalived's rotation.
  std::optional<std::string> unbound_listeners() const {
    return listeners_->unbound(std::span(lbs_).first(lbs_.empty() ? 0 : 1));
  }

  // Which views to build (admin/daemon.h).
  using ViewScope = admin::ViewScope;
  std::vector<model::LoadBalancerView> views(const ViewScope& scope) const;
  uint64_t views_after(const ViewScope& scope, uint64_t cursor, size_t count,
                       std::vector<model::LoadBalancerView>& out) const;
  std::vector<model::LoadBalancerView> views() const { return views(ViewScope{}); }
  model::LoadBalancerView view() const;  // the file's load balancer
  std::string ready_json() const;        // {"admin": "...", "listeners": {"api": "127.0.0.1:6443"}}

 private:
  struct GracefulStop {
    size_t sessions = 0;        // held by the workers when they stopped accepting
    size_t pending_counts = 0;  // workers yet to report their sessions
    size_t pending_idle = 0;    // workers yet to report that they hold none
    bool finished = false;      // `done` has run
    std::function<void()> done;
    std::unique_ptr<Timer> deadline;
  };
  void graceful_stop_over(bool deadline);
  struct Upgrade;  // the new process while it starts (upgrade_control.cc)
  void read_ready(const std::shared_ptr<Upgrade>& u);
  void upgrade_ready();
  void upgrade_failed(const std::string& why);
  void abandon_upgrade();  // stop() while a new process starts: it is stopped too
  // apply() (`api` false: `changed` is every load balancer, the file's first), or apply_api():
  // `changed` are API load balancers, new or to replace those of their ids, `removed` the ids of
  // API load balancers to remove, and the others, the file's too, run on as they are, neither
  // copied nor compared.
  Result<void> apply_changes(std::vector<model::Config> changed,
                             const std::vector<std::string>& removed, bool api);
  void index_lbs();  // lb_at_ made anew, after lbs_ lost some
  // The views of `shown` (of lbs_), as `scope` narrows them, appended to `out` (view.cc).
  void views_of(std::span<const LoadBalancerRuntime> shown, const ViewScope& scope,
                std::vector<model::LoadBalancerView>& out) const;
  // Sends every worker the pool slots and the listener changes since it last heard, with
  // `bindings`' sockets.
  void push_to_workers(std::vector<Binding>& bindings);
  // `peers:` (peer_start.cc): the session sync with the other nodes, when the config has peers.
  Result<void> start_peer_sync();
  // This host no longer holds `ip` (AddressLoss): every worker resets its sessions on it.
  void on_address_lost(const std::string& ip, const std::string& text);
  void api_members_changed();  // applies the file's load balancer with them (api_members.h)
  void liveness_tick();        // pings the workers every 500 ms (liveness.cc)
  // The co-location redirects brought up to date with the listeners and pools (redirects.h);
  // after every publish and push to the workers, and with each liveness tick for retries.
  void update_redirects();
  void heap_trim_tick();  // every 5 s: freed memory back to the kernel (heap_trim.cc)
  // Writes the connection log's records from the workers' rings (connection_log_drain.cc); runs
  // every 200 ms while a listener logs its connections.
  void drain_connection_logs();
  void schedule_connection_log();

  boost::asio::io_context& io_;
  ServeOptions options_;
  // The process settings in effect: the file's at start, then as reload() lets them change. Its
  // admin token files are those tokens_ came from (a reload that cannot read new ones keeps them).
  model::Process process_;
  admin::AdminTokens tokens_;
  model::WallTime started_at_;
  bool last_reload_ok_ = true;  // of the last reload(); none yet: true
  model::WallTime last_reload_at_{};
  const Clock& clock_;
  TimerSource& timer_source_;  // every timer of the control thread, on clock_
  const WallClock& wall_;
  int worker_count_ = 1;
  std::vector<LoadBalancerRuntime> lbs_;  // the file's first
  // The file's load balancer as the file has it; lbs_'s first is it as it runs, with the members
  // that api_members_ has from an API (members_from).
  model::Config file_config_;
  std::unique_ptr<ApiMembers> api_members_;
  StringMap<size_t> lb_at_;  // the index in lbs_ of each by id (index_lbs())
  uint64_t last_order_ = 0;  // LoadBalancerRuntime::order of the last one made
  // The file's listeners by address and port, for an API write's listeners to be checked against
  // (apply.cc); made anew by every apply() of the file.
  std::shared_ptr<const config::BindIndex> file_binds_;
  std::vector<std::unique_ptr<proxy::Worker>> workers_;
  WorkerSink worker_sink_{io_, workers_};  // Pools' way to workers_
  std::unique_ptr<health::HealthChecker> checker_;
  std::unique_ptr<CheckTargets> check_targets_;  // Pools' way to checker_
  std::unique_ptr<AddressLoss> address_loss_;  // resets the sessions on an address that moved away
  std::unique_ptr<Tickler> tickler_;           // and tickles their clients
  uint64_t addresses_lost_ = 0;                // addresses AddressLoss reported
  std::unique_ptr<PeerSync> peer_sync_;        // with `peers:`; sessions to and from the others
  std::unique_ptr<admin::ObjectStore> store_;  // objects created through the API; before admin_
  std::unique_ptr<AdminDaemon> admin_daemon_;  // what admin_ calls; before it
  // admin.store type etcd: the API's objects shared with the other nodes, store_ their cache;
  // after what it calls (store_, admin_daemon_), before what is handed it (admin_).
  std::unique_ptr<admin::SharedStore> shared_store_;
  std::unique_ptr<admin::AdminServer> admin_;
  std::unique_ptr<Pools> pools_;                     // from start(), after what it is handed
  std::unique_ptr<TransitionFile> transition_file_;  // keeps pools_->transitions(); from start()
  std::unique_ptr<Listeners> listeners_;             // from start(), once the workers are counted
  std::unique_ptr<Redirects> redirects_;             // from start()
  std::unique_ptr<Timer> liveness_;
  bool started_ = false;  // the first apply() is done
  std::unique_ptr<Timer> connection_log_;
  std::unique_ptr<Timer> heap_trim_;      // gives freed memory back (heap_trim.cc)
  uint64_t heap_trim_requests_seen_ = 0;  // the API's requests at the last look
  TimePoint heap_trimmed_at_{};
  ConnectionLogWriter connection_log_writer_;
  uint64_t connection_log_dropped_ = 0;      // records the rings dropped, all workers
  TimePoint connection_log_drop_said_at_{};  // the last warning about drops
  TimePoint workers_answered_at_{};  // when the last ping that every worker answered was sent
  TimePoint ping_sent_at_{};
  uint64_t ping_round_ = 0;
  size_t ping_answers_ = SIZE_MAX;  // of round ping_round_; SIZE_MAX: no ping sent yet
  // The open-file limit under which the listeners' max_connections were last lowered (0: not
  // lowered): the lowering is logged when it starts or the limit differs, not at every API write
  // that adds a listener (each changes the line's sums).
  uint64_t fd_lowered_under_ = 0;
  bool stopped_ = false;
  std::unique_ptr<GracefulStop> graceful_;  // set by begin_graceful_stop()
  upgrade::Inherited inherited_;            // sockets from the process this one replaces
  Result<upgrade::Command> command_ = fail("not started");  // what an upgrade runs
  std::shared_ptr<Upgrade> upgrade_;                        // while a new process starts
  bool upgrade_started_ = false;  // a new process was started, whatever became of it

  // Whether the state file and admin.socket's file are this process's alone (see fold_state).
  bool owns_shared_files(bool ready_told) const;
};

// `vigil serve`: loads the config, runs until SIGTERM/SIGINT, reloads on SIGHUP. Returns the
// process exit code.
int serve(const ServeOptions& options);

}  // namespace vigil::daemon
