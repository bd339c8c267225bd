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
#include "daemon/fd_budget.h"
#include "daemon/member_health.h"
#include "daemon/process_reload.h"
#include "daemon/upgrade.h"
#include "health/checker.h"
#include "net/socket.h"

namespace vigil::daemon {
namespace {

constexpr size_t kMaxTransitions = 100;

// Keepalive for the sessions of a member that stopped answering connects: a probe after 1 s
// idle, dead after two unanswered probes a second apart.
const net::DeadPeerOptions kSuspectProbe{.keepalive_idle = std::chrono::seconds(1),
                                         .keepalive_interval = std::chrono::seconds(1),
                                         .keepalive_count = 2,
                                         .user_timeout = std::chrono::milliseconds(3000)};

model::WallTime wall_now() { return std::chrono::system_clock::now(); }

}  // namespace

ControlPlane::ControlPlane(boost::asio::io_context& io, ServeOptions options,
                           model::Process process, model::Config file_config,
                           admin::AdminTokens tokens)
    : io_(io),
      options_(std::move(options)),
      process_(std::move(process)),
      tokens_(std::move(tokens)),
      started_at_(wall_now()),
      ramp_(timer_source_.create_timer([this] { reweigh_all(); })),
      liveness_(timer_source_.create_timer([this] { liveness_tick(); })),
      rebind_(timer_source_.create_timer([this] { rebind_tick(); })),
      names_retry_(timer_source_.create_timer([this] { resolve_names(); })),
      connection_log_(timer_source_.create_timer([this] { drain_connection_logs(); })),
      heap_trim_(timer_source_.create_timer([this] { heap_trim_tick(); })) {
  lbs_.push_back({.config = std::move(file_config)});
}

ControlPlane::~ControlPlane() { stop(); }

Result<void> ControlPlane::start() {
  // A copy: lbs_ is rebuilt by apply().
  const model::Config file = lbs_.front().config;
  worker_count_ = process_.workers > 0
                      ? process_.workers
                      : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  inherited_ = upgrade::Inherited::from_environment();
  command_ = upgrade::command_at_start();
  if (upgrade::started_by_upgrade()) {
    log::info("upgrade: taking over from pid {} with {} inherited sockets", ::getppid(),
              inherited_.size());
  }
  take_handed_over_health();
  auto store = admin::ObjectStore::load(process_.admin.state_file);
  if (!store) return std::unexpected(store.error());
  store_ = std::make_unique<admin::ObjectStore>(std::move(*store));

  resolver_ = std::make_unique<net::Resolver>(
      [this](std::function<void()> answer) { boost::asio::post(io_, std::move(answer)); });
  checker_ = std::make_unique<health::HealthChecker>(
      io_, clock_, timer_source_, [this](const health::Event& e) { on_check(e); },
      std::random_device{}(),
      health::CheckSockets{.idle_tcp = static_cast<size_t>(idle_check_sockets())});
  checker_->on_silence([this](const health::Silence& s) { on_silence(s); });
  tickler_ = std::make_unique<Tickler>(clock_, timer_source_, raw_tickles());
  if (auto peers = start_peer_sync(); !peers) return peers;
  address_loss_ = std::make_unique<AddressLoss>(
      io_, [this](const std::string& ip, const std::string& text) { on_address_lost(ip, text); },
      [this](const std::string& ip, const std::string& text) {
        if (peer_sync_) peer_sync_->address_gained(ip, text);
      });
  for (int w = 0; w < worker_count_; ++w) {
    workers_.push_back(std::make_unique<proxy::Worker>(
        w, std::vector<proxy::ListenSocket>{}, std::vector<proxy::PoolSnapshotPtr>{},
        proxy::WorkerCallbacks{
            .on_connect_failure =
                [this](proxy::ConnectFailure f) { on_connect_failure(std::move(f)); },
            .on_suspect = [this](proxy::MemberSuspect s) { on_suspect(std::move(s)); }}));
    workers_.back()->start();
  }
  std::vector<model::Config> initial{file};
  for (model::Config& c : store_->configs()) initial.push_back(std::move(c));
  lbs_.clear();
  const auto applied = apply(std::move(initial));
  carried_.clear();  // applied to the members it named; a reload must not bring it back
  if (!applied) return applied;
  workers_answered_at_ = clock_.now();
  liveness_tick();
  heap_trim_tick();  // the file's parse is all free now
  std::optional<net::Fd> admin_socket = inherited_.take(upgrade::kAdminSocket, 0);
  inherited_.close_unused();

  if (!process_.admin.listen.empty()) {
    admin_daemon_ = std::make_unique<AdminDaemon>(*this);
    admin_ = std::make_unique<admin::AdminServer>(
        io_,
        admin::Options{.listen = process_.admin.listen,
                       .token = tokens_.write,
                       .read_token = tokens_.read,
                       .default_project = process_.admin.octavia_project,
                       .store = store_.get(),
                       .inherited_fd = admin_socket ? admin_socket->get() : -1},
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
  if (graceful_ && graceful_->deadline) graceful_->deadline->cancel();
  abandon_upgrade();
  if (checker_) checker_->stop();
  address_loss_.reset();
  if (peer_sync_) peer_sync_->stop();
  if (admin_) admin_->stop();
  ramp_->cancel();
  liveness_->cancel();
  rebind_->cancel();
  names_retry_->cancel();
  resolver_.reset();  // answers still under way are dropped
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

void ControlPlane::fold_state(bool ready_told) {
  if (!store_ || upgrade_started_ || (upgrade::started_by_upgrade() && !ready_told)) return;
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
  last_reload_at_ = wall_now();
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
  std::vector<model::Config> next{std::move(*loaded.config)};
  for (size_t i = 1; i < lbs_.size(); ++i) next.push_back(lbs_[i].config);
  if (auto applied = apply(std::move(next)); !applied) {
    log::error("reload refused: {}; the running configuration stays", applied.error().message);
    return std::unexpected(applied.error());
  }
  set_log_format(process.next.log.format);
  model::Admin& admin = process.next.admin;
  if (admin_) {
    admin_->set_default_project(admin.octavia_project);
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

Result<void> ControlPlane::set_override(const std::string& member_id,
                                        std::optional<model::AdminOverride> next,
                                        std::string_view by) {
  auto it = index_.find(member_id);
  if (it == index_.end()) return fail("no member with id " + member_id);
  PoolRuntime& pool = *it->second.first;
  const size_t i = it->second.second;
  // Back to the file's own weight, and ready: nothing is left to override, whichever way it was
  // asked (vigil member weight, PUT .../admin, Octavia member set --weight); a later edit of the
  // file's weight then takes effect.
  if (next && next->state == model::AdminState::kReady &&
      next->weight == pool.members[i].config.weight) {
    next.reset();
  }
  if (auto saved = store_->set_override(member_id, next); !saved) return saved;
  log::info("pool {} member {}: admin {} by {}", pool.config.name, pool.members[i].config.name,
            next ? model::describe(*next) : "ready (override cleared)", by);
  if (carry_out(pool, apply_override(pool, i, std::move(next), by, context()))) publish();
  return {};
}

void ControlPlane::on_connect_failure(proxy::ConnectFailure failure) {
  boost::asio::post(io_, [this, f = std::move(failure)] { handle_connect_failure(f); });
}

void ControlPlane::handle_connect_failure(const proxy::ConnectFailure& failure) {
  auto it = index_.find(failure.member_id);
  if (stopped_ || it == index_.end()) return;  // a member removed since
  PoolRuntime& pool = *it->second.first;
  const size_t index = it->second.second;
  MemberRuntime& m = pool.members[index];
  const auto changes = apply_connect_failure(pool, index, failure.silent, context());
  if (!changes) return;
  const bool confirmed = failure.silent && silence_confirmed(m, clock_.now(), failure.waited,
                                                             pool.config.shutdown_sessions_on_down);
  log::warn("pool {} member {} {}: connect failed ({}); out of rotation until a check passes",
            pool.config.name, m.config.name, m.address ? m.address->to_string() : m.config.address,
            failure.reason);
  if (failure.silent) {
    // The host did not answer at all: it may be powered off, and then its sessions hang without
    // a FIN or RST. Probe them now rather than after the normal keepalive idle time, and close
    // them if the check run now gets no answer either (on_check).
    for (auto& w : workers_) w->probe_member_sessions(m.stats, kSuspectProbe);
  }
  if (failure.silent && !confirmed) {
    const Duration timeout = pool.config.health_monitor->timeout;  // has one: changes said so
    checker_->confirm_silence(
        m.id, clock_.now() + confirm_window(failure.limit, failure.waited, timeout));
  } else {
    checker_->check_now(m.id);
  }
  if (confirmed) {
    // Decided before the recomputation, and carried out before what it decides (as on_check).
    carry_out(pool, {.closes = {{.member = index, .reason = CloseReason::kSilent}}});
  }
  if (carry_out(pool, *changes)) publish();
}

void ControlPlane::on_suspect(proxy::MemberSuspect suspect) {
  boost::asio::post(io_, [this, s = std::move(suspect)] { handle_suspect(s); });
}

// Not logged: a slow member may be suspect once a second for as long as it is slow, and the
// check's result is what tells (its transition line, or nothing).
void ControlPlane::handle_suspect(const proxy::MemberSuspect& suspect) {
  auto it = index_.find(suspect.member_id);
  if (stopped_ || it == index_.end()) return;
  const PoolRuntime& pool = *it->second.first;
  const MemberRuntime& m = pool.members[it->second.second];
  if (!check_suspect(m, pool.config.health_monitor.has_value())) return;
  const Duration timeout = pool.config.health_monitor->timeout;
  checker_->confirm_silence(m.id,
                            clock_.now() + confirm_window(suspect.limit, suspect.waited, timeout));
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

// The check started to confirm a silent connect or first flight got no byte in time: the second
// signal, before the check's own timeout.
void ControlPlane::on_silence(const health::Silence& s) {
  if (stopped_ || s.tag >= checked_.size() || checked_[s.tag].first == nullptr) return;
  PoolRuntime& pool = *checked_[s.tag].first;
  const size_t index = checked_[s.tag].second;
  if (record_silence(pool.members[index], clock_.now(), pool.config.shutdown_sessions_on_down)) {
    carry_out(pool, {.closes = {{.member = index, .reason = CloseReason::kSilent}}});
  }
}

void ControlPlane::on_check(const health::Event& e) {
  // apply() changes a pool's members only together with update_checks(), which gives them tags
  // anew, and the checker reports no member it no longer checks: a tag names its member. The id
  // is not compared in release builds: its bytes are one more cache miss per result.
  if (stopped_ || e.tag >= checked_.size() || checked_[e.tag].first == nullptr) return;
  const auto [pool_ptr, index] = checked_[e.tag];
  assert(index < pool_ptr->members.size() && pool_ptr->members[index].id == e.member_id);
  const CheckRecorded recorded = record_check_of(*pool_ptr, index, e, context());
  if (recorded.hidden) log_hidden_health(*pool_ptr, pool_ptr->members[index], *recorded.hidden);
  if (recorded.close_sessions) {
    // Decided before the recomputation, and carried out before what it decides.
    carry_out(*pool_ptr, {.closes = {{.member = index, .reason = CloseReason::kSilent}}});
  }
  if (recorded.recompute) recompute_soon(*pool_ptr);
}

// A pool's recompute walks all its members: once per result, a cold start's burst of first
// results (one per member) would cost the square of the pool. Results that arrive together
// (one turn of the loop: the completions one epoll_wait returned) are recomputed together.
void ControlPlane::recompute_soon(const PoolRuntime& pool) {
  if (std::ranges::find(to_recompute_, pool.id) == to_recompute_.end()) {
    to_recompute_.push_back(pool.id);
  }
  if (recompute_posted_) return;
  recompute_posted_ = true;
  boost::asio::post(io_, [this] { recompute_pending(); });
}

void ControlPlane::recompute_pending() {
  recompute_posted_ = false;
  const std::vector<std::string> ids = std::move(to_recompute_);
  to_recompute_.clear();
  if (stopped_) return;
  bool changed = false;
  for (const std::string& id : ids) {
    // A pool removed since needs nothing; one made anew by apply() was recomputed already, and
    // is again here, to no effect.
    if (auto it = pools_.find(id); it != pools_.end()) {
      changed |= carry_out(*it->second, recompute(*it->second, context()));
    }
  }
  if (changed) publish();
}

PoolContext ControlPlane::context() const {
  return {.now = clock_.now(), .wall = wall_now(), .next_version = snapshot_version_ + 1};
}

bool ControlPlane::carry_out(const PoolRuntime& pool, const PoolChanges& changes) {
  for (const SessionClose& c : changes.closes) {
    if (c.reason != CloseReason::kSilent) continue;
    log::warn("pool {} member {}: no answer to a connect nor to a check; closing its sessions",
              pool.config.name, pool.members[c.member].config.name);
    close_sessions(pool, pool.members[c.member], /*silent=*/true);
  }
  for (const MemberTransition& t : changes.transitions) record_transition(pool, t);
  for (const SessionClose& c : changes.closes) {
    if (c.reason == CloseReason::kMaint) {
      log::info("pool {} member {}: in maintenance; closing its sessions", pool.config.name,
                pool.members[c.member].config.name);
    }
    if (c.reason != CloseReason::kSilent) close_sessions(pool, pool.members[c.member]);
  }
  for (PoolEvent e : changes.events) {
    switch (e) {
      case PoolEvent::kFailOpenStarted:
        if (!changes.common_reason.empty()) {
          log::error(
              "pool {}: every member fails its check alike ({}): the cluster's problem, not the "
              "members'; failing open to the {} that take connections",
              pool.config.name, changes.common_reason, pool.snapshot->candidates.size());
        } else {
          log::error(
              "pool {}: no member is usable; failing open: routing to the {} enabled members "
              "that take connections",
              pool.config.name, pool.snapshot->candidates.size());
        }
        break;
      case PoolEvent::kFailOpenEnded:
        log::info("pool {}: a member is usable again; no longer failing open", pool.config.name);
        break;
      case PoolEvent::kNoCandidates:
        log::error("pool {}: no member can take connections; new connections are closed",
                   pool.config.name);
        break;
    }
  }
  if (changes.reweigh_at) schedule_ramp(*changes.reweigh_at);
  if (!changes.snapshot) return false;
  snapshot_version_ = changes.snapshot->version;
  set_slot(pool.slot, changes.snapshot);
  return true;
}

// While a member is in slow start, its weight is raised a step every half second.
void ControlPlane::schedule_ramp(TimePoint at) {
  if (ramp_->armed() || stopped_) return;
  ramp_->arm(at);
}

void ControlPlane::reweigh_all() {
  if (stopped_) return;
  bool changed = false;
  for (auto& [id, pool] : pools_) {
    changed |= carry_out(*pool, reweigh(*pool, context()));
  }
  if (changed) publish();
}

void ControlPlane::publish() {
  const proxy::PoolSlots slots = slot_changes();
  for (auto& w : workers_) w->publish(slots);
}

void ControlPlane::set_slot(uint32_t slot, proxy::PoolSnapshotPtr pool) {
  slots_[slot] = std::move(pool);
  unsent_slots_.push_back(slot);
}

uint32_t ControlPlane::new_slot() {
  slots_.emplace_back();
  unsent_slots_.push_back(static_cast<uint32_t>(slots_.size() - 1));
  return static_cast<uint32_t>(slots_.size() - 1);
}

proxy::PoolSlots ControlPlane::slot_changes() {
  std::ranges::sort(unsent_slots_);
  const auto [end, last] = std::ranges::unique(unsent_slots_);
  unsent_slots_.erase(end, last);
  proxy::PoolSlots out{.size = slots_.size()};
  out.set.reserve(unsent_slots_.size());
  for (uint32_t slot : unsent_slots_) out.set.emplace_back(slot, slots_[slot]);
  unsent_slots_.clear();
  return out;
}

// Closes the member's sessions on every worker so that their clients reconnect through a healthy
// member; logs how many once every worker has answered.
void ControlPlane::close_sessions(const PoolRuntime& pool, const MemberRuntime& m, bool silent) {
  // What the line needs, copied: by the time every worker answered, a reload may have removed
  // the member. The counts are read then, so that they include what the close did.
  struct Tally {
    size_t pending = 0;
    std::string pool, member, address;
    model::OperatingStatus status;
    bool silent = false;
    std::shared_ptr<const proxy::BackendStats> stats;
    model::DisruptionCounts since;
  };
  auto tally = std::make_shared<Tally>(
      Tally{.pending = workers_.size(),
            .pool = pool.config.name,
            .member = m.config.name,
            .address = m.address ? m.address->to_string() : m.config.address,
            .status = m.status,
            .silent = silent,
            .stats = m.stats,
            .since = m.counted_since});
  for (auto& w : workers_) {
    w->close_member_sessions(m.stats, [this, tally](size_t) {
      boost::asio::post(io_, [tally] {
        if (--tally->pending > 0) return;
        log_disruption(tally->pool, tally->member, tally->address, tally->status,
                       tally->stats->disruption() - tally->since, tally->silent);
      });
    });
  }
}

void ControlPlane::record_transition(const PoolRuntime& pool, const MemberTransition& t) {
  log_transition(pool, pool.members[t.member], t);
  transitions_.push_back({.at = pool.members[t.member].state_since,
                          .pool_id = pool.id,
                          .pool = pool.config.name,
                          .member = pool.members[t.member].config.name,
                          .message = t.line});
  while (transitions_.size() > kMaxTransitions) transitions_.pop_front();
}

}  // namespace vigil::daemon
