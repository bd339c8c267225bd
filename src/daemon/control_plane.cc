#include "daemon/control_plane.h"

#include <unistd.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <cassert>
#include <iterator>
#include <thread>

#include "admin/octavia/object_store.h"
#include "admin/server.h"
#include "base/file.h"
#include "base/log.h"
#include "config/loader.h"
#include "daemon/admin_daemon.h"
#include "daemon/api_members.h"
#include "daemon/fd_budget.h"
#include "daemon/health_handover.h"
#include "daemon/process_reload.h"
#include "daemon/shared_store_start.h"
#include "daemon/upgrade.h"
#include "health/checker.h"
#include "net/socket.h"
#include "net/unix_socket.h"

namespace vigil::daemon {
namespace {

// admin.socket: the one the process this one replaces handed over, else bound afresh (replacing
// a stale socket a crash left behind; never anything else).
Result<net::Fd> open_admin_socket(const std::string& path, std::optional<net::Fd> inherited) {
  if (inherited) {
    log::info("admin API on unix:{} (inherited)", path);
    return std::move(*inherited);
  }
  auto listener = net::listen_unix(path);
  if (!listener) return std::unexpected(listener.error());
  log::info("admin API on unix:{} (mode 0660, group {})", path, listener->group);
  return std::move(listener->fd);
}

}  // namespace

ControlPlane::ControlPlane(boost::asio::io_context& io, const Clock& clock, TimerSource& timers,
                           const WallClock& wall, ServeOptions options, model::Process process,
                           model::Config file_config, admin::AdminTokens tokens)
    : io_(io),
      options_(std::move(options)),
      process_(std::move(process)),
      tokens_(std::move(tokens)),
      started_at_(wall.now()),
      clock_(clock),
      timer_source_(timers),
      wall_(wall),
      liveness_(timer_source_.create_timer([this] { liveness_tick(); })),
      connection_log_(timer_source_.create_timer([this] { drain_connection_logs(); })),
      heap_trim_(timer_source_.create_timer([this] { heap_trim_tick(); })) {
  lbs_.push_back({.config = std::move(file_config), .order = ++last_order_});
}

ControlPlane::~ControlPlane() { stop(); }

void ControlPlane::api_members_changed() {
  if (stopping()) return;
  std::vector<model::Config> next{api_members_->running(file_config_)};
  for (size_t i = 1; i < lbs_.size(); ++i) next.push_back(lbs_[i].config);
  if (auto applied = apply(std::move(next)); !applied) {
    log::error("members from the API not applied: {}; the running members stay",
               applied.error().message);
  }
}

Result<void> ControlPlane::start() {
  // A copy: lbs_ is rebuilt by apply().
  const model::Config file = lbs_.front().config;
  worker_count_ = process_.workers > 0
                      ? process_.workers
                      : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  inherited_ = upgrade::Inherited::from_environment();
  listeners_ = std::make_unique<Listeners>(
      clock_, timer_source_, inherited_, worker_count_,
      [this](std::vector<Binding>& bound) { push_to_workers(bound); },
      [this] { return stopping(); });
  command_ = upgrade::command_at_start();
  if (upgrade::started_by_upgrade()) {
    log::info("upgrade: taking over from pid {} with {} inherited sockets", ::getppid(),
              inherited_.size());
  }
  std::vector<CarriedHealth> carried =
      handed_over_health(inherited_.take(upgrade::kHealthState, 0));
  auto store = admin::ObjectStore::load(process_.admin.state_file);
  if (!store) return std::unexpected(store.error());
  store_ = std::make_unique<admin::ObjectStore>(std::move(*store));

  checker_ = std::make_unique<health::HealthChecker>(
      io_, clock_, timer_source_, [this](const health::Event& e) { pools_->on_check(e); },
      std::random_device{}(),
      health::CheckSockets{.idle_tcp = static_cast<size_t>(idle_check_sockets())});
  checker_->on_silence([this](const health::Silence& s) { pools_->on_silence(s); });
  check_targets_ = std::make_unique<CheckerTargets>(*checker_);
  pools_ = std::make_unique<Pools>(
      clock_, timer_source_, wall_, *check_targets_, worker_sink_, *store_,
      [this](std::function<void()> f) { boost::asio::post(io_, std::move(f)); });
  redirects_ = std::make_unique<Redirects>(clock_, [] { return open_redirect_table(); });
  worker_sink_.after_publish([this] { update_redirects(); });
  pools_->start_names();
  pools_->resume(std::move(carried));
  // The page's recent transitions outlive the process: a reboot is read the morning after.
  transition_file_ = std::make_unique<TransitionFile>(
      transitions_path(process_.admin.state_file), clock_, timer_source_,
      [this]() -> const std::deque<model::Transition>& { return pools_->transitions(); });
  pools_->restore_transitions(load_transitions(transition_file_->path(), Pools::kMaxTransitions));
  pools_->on_transitions_changed([this] { transition_file_->changed(); });
  tickler_ = std::make_unique<Tickler>(clock_, timer_source_, raw_tickles());
  if (auto peers = start_peer_sync(); !peers) return peers;
  address_loss_ = std::make_unique<AddressLoss>(
      io_, [this](const std::string& ip, const std::string& text) { on_address_lost(ip, text); },
      [this](const std::string& ip, const std::string& text) {
        if (peer_sync_) peer_sync_->address_gained(ip, text);
      });
  // Any thread: what a worker reports is handed to the control thread.
  const proxy::WorkerCallbacks reports{
      .on_connect_failure =
          [this](proxy::ConnectFailure f) {
            boost::asio::post(io_, [this, f = std::move(f)] { pools_->on_connect_failure(f); });
          },
      .on_suspect =
          [this](proxy::MemberSuspect s) {
            boost::asio::post(io_, [this, s = std::move(s)] { pools_->on_suspect(s); });
          }};
  for (int w = 0; w < worker_count_; ++w) {
    workers_.push_back(std::make_unique<proxy::Worker>(
        w, std::vector<proxy::ListenSocket>{}, std::vector<proxy::PoolSnapshotPtr>{}, reports));
    workers_.back()->start();
  }
  file_config_ = file;
  api_members_ =
      std::make_unique<ApiMembers>(io_, clock_, timer_source_, [this] { api_members_changed(); });
  std::vector<model::Config> initial{file};
  for (model::Config& c : store_->configs()) initial.push_back(std::move(c));
  lbs_.clear();
  if (auto applied = apply(std::move(initial)); !applied) return applied;
  api_members_->follow(file_config_);
  workers_answered_at_ = clock_.now();
  liveness_tick();
  heap_trim_tick();  // the file's parse is all free now
  std::optional<net::Fd> admin_socket = inherited_.take(upgrade::kAdminSocket, 0);
  std::optional<net::Fd> admin_unix = inherited_.take(upgrade::kAdminUnixSocket, 0);
  inherited_.close_unused();

  // The store follows etcd whether or not this node serves the API.
  if (!process_.admin.listen.empty() || process_.admin.store.type == model::StoreType::kEtcd) {
    admin_daemon_ = std::make_unique<AdminDaemon>(*this);
  }
  if (admin_daemon_ && process_.admin.store.type == model::StoreType::kEtcd) {
    auto shared = start_shared_store(process_.admin.store, io_, *store_, *admin_daemon_, clock_,
                                     wall_, timer_source_);
    if (!shared) return std::unexpected(shared.error());
    shared_store_ = std::move(*shared);
  }
  if (!process_.admin.listen.empty()) {
    net::Fd unix_fd;
    if (!process_.admin.socket.empty()) {
      auto opened = open_admin_socket(process_.admin.socket, std::move(admin_unix));
      if (!opened) return std::unexpected(opened.error());
      unix_fd = std::move(*opened);
    }
    admin_ = std::make_unique<admin::AdminServer>(
        io_,
        admin::Options{.listen = process_.admin.listen,
                       .token = tokens_.write,
                       .read_token = tokens_.read,
                       .default_project = process_.admin.octavia_project,
                       .public_endpoint = process_.admin.octavia_endpoint,
                       .trust_forwarded_headers = process_.admin.trust_forwarded_headers,
                       .page_max_limit = process_.admin.octavia_pagination_max_limit,
                       .metrics = process_.admin.metrics,
                       .store = store_.get(),
                       .shared = shared_store_.get(),
                       .inherited_fd = admin_socket ? admin_socket->get() : -1,
                       .unix_fd = unix_fd.release()},
        *admin_daemon_);
    if (admin_socket) admin_socket->release();  // the server owns it from start() on
    if (auto started = admin_->start(); !started) return started;
    log::info("admin API on http://{}", admin_->bound());
  }
  return {};
}

size_t ControlPlane::stop() {
  if (stopped_) return 0;
  stopped_ = true;
  // Before the listeners close: no redirect to a port nobody answers. (Were this skipped, the
  // kernel would still remove the table with the process.)
  if (redirects_ && listeners_ && pools_) update_redirects();
  if (pools_) pools_->stop();
  if (graceful_ && graceful_->deadline) graceful_->deadline->cancel();
  abandon_upgrade();
  if (transition_file_) transition_file_->flush();  // held after an upgrade: the new one writes
  if (checker_) checker_->stop();
  address_loss_.reset();
  api_members_.reset();  // no more lists or watches, nor changes from them
  if (peer_sync_) peer_sync_->stop();
  if (admin_) admin_->stop();
  shared_store_.reset();  // no more changes from etcd: the daemon stops
  liveness_->cancel();
  if (listeners_) listeners_->stop();
  connection_log_->cancel();
  heap_trim_->cancel();
  size_t cut = 0;
  for (auto& w : workers_) {
    w->stop();  // closes listeners and sessions, joins
    cut += w->sessions_cut_at_stop();
  }
  drain_connection_logs();  // the sessions the stop cut
  return cut;
}

bool ControlPlane::owns_shared_files(bool ready_told) const {
  return !upgrade_started_ && !(upgrade::started_by_upgrade() && !ready_told);
}

void ControlPlane::remove_admin_socket(bool ready_told) {
  if (admin_ && !process_.admin.socket.empty() && owns_shared_files(ready_told)) {
    net::remove_socket(process_.admin.socket);
  }
}

void ControlPlane::fold_state(bool ready_told) {
  if (!store_ || !owns_shared_files(ready_told)) return;
  const auto folded = store_->fold();
  if (!folded) {
    log::warn("at stop: {}; the state file and its journal stay as they were",
              folded.error().message);
  } else if (*folded) {
    log::info("at stop: wrote {} whole, with the writes its journal held", store_->state_file());
  }
}

Result<std::vector<std::string>> ControlPlane::reload() {
  if (stopping()) return fail("vigil is stopping; the configuration can no longer change");
  // Failed until it gets through: each refusal below returns early.
  last_reload_at_ = wall_.now();
  last_reload_ok_ = false;
  config::LoadResult loaded = config::load_file(options_.config_path);
  for (const auto& d : loaded.diagnostics) {
    if (d.severity == config::Diagnostic::Severity::kError) log::error("reload: {}", d.to_string());
  }
  if (!loaded.ok()) {
    log::error("reload refused: {} has errors; the running configuration stays",
               options_.config_path);
    // One line per error, for `vigil reload` (and so `systemctl reload`) to show.
    std::string why = options_.config_path + " has errors; the running configuration stays";
    for (const auto& d : loaded.diagnostics) {
      if (d.is_error()) why += "\n" + d.to_string();
    }
    return fail(why);
  }
  model::Process loaded_process = std::move(*loaded.process);
  if (!options_.token_file.empty()) loaded_process.admin.token_file = options_.token_file;
  ProcessReload process = reload_process(process_, std::move(loaded_process));
  // Pools that keep their members_from run on with the API's members; the others with the file's.
  std::vector<model::Config> next{api_members_->running(*loaded.config)};
  for (size_t i = 1; i < lbs_.size(); ++i) next.push_back(lbs_[i].config);
  if (auto applied = apply(std::move(next)); !applied) {
    log::error("reload refused: {}; the running configuration stays", applied.error().message);
    return std::unexpected(applied.error());
  }
  file_config_ = std::move(*loaded.config);
  api_members_->follow(file_config_);
  set_log_format(process.next.log.format);
  model::Admin& admin = process.next.admin;
  if (admin_) {
    admin_->set_default_project(admin.octavia_project);
    admin_->set_public_endpoint(admin.octavia_endpoint, admin.trust_forwarded_headers);
    admin_->set_page_max_limit(admin.octavia_pagination_max_limit);
    admin_->set_metrics(admin.metrics);
    // A rotated token takes effect with the reload; an unreadable one keeps the old ones. A file
    // named for the first time has its permissions checked, as at start.
    const bool new_files = admin.token_file != process_.admin.token_file ||
                           admin.read_token_file != process_.admin.read_token_file;
    if (auto tokens = admin::read_admin_tokens(admin, new_files)) {
      tokens_ = std::move(*tokens);
      admin_->set_token(tokens_.write);
      admin_->set_read_token(tokens_.read);
    } else {
      log::error("reload: {}; keeping the previous tokens", tokens.error().message);
      admin.token_file = process_.admin.token_file;
      admin.read_token_file = process_.admin.read_token_file;
    }
  }
  process_ = std::move(process.next);
  for (const std::string& w : process.warnings) log::warn("reload: {}", w);
  log::info("reloaded {}", options_.config_path);
  last_reload_ok_ = true;
  return std::move(process.warnings);
}

Result<void> ControlPlane::apply_api(admin::ApiChange change) {
  return apply_changes(std::move(change.changed), change.removed, /*api=*/true);
}

void ControlPlane::on_address_lost(const std::string& ip, const std::string& text) {
  if (stopped_) return;
  ++addresses_lost_;
  struct Tally {
    size_t pending = 0;
    std::vector<proxy::LostSession> lost;
  };
  auto tally = std::make_shared<Tally>(Tally{.pending = workers_.size()});
  for (auto& w : workers_) {
    w->reset_sessions_on(ip, [this, tally, text](std::vector<proxy::LostSession> lost) {
      boost::asio::post(io_, [this, tally, text, lost = std::move(lost)]() mutable {
        std::ranges::move(lost, std::back_inserter(tally->lost));
        if (--tally->pending > 0 || stopped_) return;
        log::warn(
            "address {} left this host: {} sessions on it reset, their clients tickled so that "
            "they reconnect to its new holder at once",
            text, tally->lost.size());
        tickler_->tickle(std::move(tally->lost));
      });
    });
  }
}

}  // namespace vigil::daemon
