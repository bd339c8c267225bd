#include "daemon/control_plane.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "admin/server.h"
#include "base/duration.h"
#include "base/log.h"
#include "daemon/rotation.h"
#include "daemon/transition_log.h"
#include "health/checker.h"
#include "model/ids.h"
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

// The member answered its check at the application level: it is alive and serving, so its
// sessions are left to finish (a draining API server closes them itself).
bool answered(const std::optional<model::CheckResult>& check) {
  return check && (check->outcome == model::Outcome::kOk || check->outcome == model::Outcome::kBadStatus);
}

model::WallTime wall_now() { return std::chrono::system_clock::now(); }

}  // namespace

ControlPlane::ControlPlane(boost::asio::io_context& io, model::Config config, std::string token)
    : io_(io), config_(std::move(config)), token_(std::move(token)) {
  lb_id_ = model::load_balancer_id(config_.name);
  started_at_ = wall_now();
  for (const model::Pool& p : config_.pools) {
    PoolRuntime pool{.id = model::pool_id(config_.name, p.name), .config = p};
    pool.config.members.clear();
    for (const model::Member& m : p.members) {
      MemberRuntime member{.id = model::member_id(config_.name, p.name, m.name), .config = m};
      member.state_since = started_at_;
      pool.members.push_back(std::move(member));
    }
    pools_.push_back(std::move(pool));
  }
  for (size_t i = 0; i < pools_.size(); ++i) {
    for (size_t j = 0; j < pools_[i].members.size(); ++j) index_[pools_[i].members[j].id] = {i, j};
  }
  for (const model::Listener& l : config_.listeners) {
    ListenerRuntime listener{.id = model::listener_id(config_.name, l.name), .config = l};
    for (size_t i = 0; i < config_.pools.size(); ++i) {
      if (config_.pools[i].name == l.pool) listener.pool_index = i;
    }
    listeners_.push_back(std::move(listener));
  }
}

ControlPlane::~ControlPlane() { stop(); }

void ControlPlane::resolve_members() {
  for (PoolRuntime& pool : pools_) {
    for (MemberRuntime& m : pool.members) {
      auto addresses = net::resolve(m.config.address, m.config.port);
      if (addresses) {
        m.address = addresses->front();
      } else {
        m.resolve_error = addresses.error().message;
        log::warn("pool {} member {}: {}; it gets no traffic", pool.config.name, m.config.name,
                  m.resolve_error);
      }
    }
  }
}

Result<void> ControlPlane::bind_listeners(int workers,
                                          std::vector<std::vector<proxy::ListenSocket>>& out) {
  out.resize(static_cast<size_t>(workers));
  for (ListenerRuntime& l : listeners_) {
    const std::string host = l.config.bind_address.empty() ? "::" : l.config.bind_address;
    auto address = net::SocketAddress::from_ip(host, l.config.port);
    if (!address) return fail(fmt::format("listener {}: {}", l.config.name, address.error().message));
    for (int w = 0; w < workers; ++w) {
      auto fd = net::listen_tcp(*address);
      if (!fd) return fail(fmt::format("listener {}: {}", l.config.name, fd.error().message));
      if (w == 0) {
        // With port 0 the kernel picked one; the other workers' sockets join it.
        *address = *net::local_address(fd->get());
        l.bound = address->to_string();
      }
      out[static_cast<size_t>(w)].push_back(
          {.listener_name = l.config.name,
           .fd = std::move(*fd),
           .pool_index = static_cast<uint32_t>(l.pool_index),
           .max_connections = l.config.max_connections,
           .idle_timeout = l.config.idle_timeout,
           .client_dead_peer = net::dead_peer_options(l.config.dead_peer_timeout),
           .stats = l.stats});
    }
  }
  return {};
}

Result<void> ControlPlane::start() {
  resolve_members();
  for (size_t i = 0; i < pools_.size(); ++i) refresh_pool(i, "start-up");
  const int workers = config_.workers > 0
                          ? config_.workers
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<std::vector<proxy::ListenSocket>> sockets;
  if (auto bound = bind_listeners(workers, sockets); !bound) return bound;

  std::vector<proxy::PoolSnapshotPtr> snapshots;
  for (const PoolRuntime& p : pools_) snapshots.push_back(p.snapshot);
  for (int w = 0; w < workers; ++w) {
    workers_.push_back(std::make_unique<proxy::Worker>(
        w, std::move(sockets[static_cast<size_t>(w)]), snapshots,
        proxy::WorkerCallbacks{.on_connect_failure = [this](proxy::ConnectFailure f) {
          on_connect_failure(std::move(f));
        }}));
    workers_.back()->start();
  }
  for (const ListenerRuntime& l : listeners_) {
    log::info("listener {} on {} -> pool {}", l.config.name, l.bound, l.config.pool);
  }

  if (!config_.admin.listen.empty()) {
    admin_ = std::make_unique<admin::AdminServer>(io_, admin::Options{.listen = config_.admin.listen, .token = token_},
                                                  [this] { return view(); });
    if (auto started = admin_->start(); !started) return started;
    log::info("admin API on http://{}", admin_->bound());
  }

  checker_ = std::make_unique<health::HealthChecker>(
      io_, clock_, [this](const health::Event& e) { on_check(e); });
  std::vector<health::Target> targets;
  for (const PoolRuntime& p : pools_) {
    if (!p.config.health_monitor) continue;
    for (const MemberRuntime& m : p.members) {
      if (!m.config.enabled) continue;
      targets.push_back(
          {.member_id = m.id,
           .monitor = *p.config.health_monitor,
           .address = m.config.monitor_address.empty() ? m.config.address : m.config.monitor_address,
           .port = m.config.monitor_port ? m.config.monitor_port : m.config.port});
    }
  }
  checker_->set_targets(std::move(targets));
  return {};
}

void ControlPlane::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (checker_) checker_->stop();
  if (admin_) admin_->stop();
  for (auto& w : workers_) w->stop();  // closes listeners and sessions, joins
}

void ControlPlane::on_connect_failure(proxy::ConnectFailure failure) {
  boost::asio::post(io_, [this, f = std::move(failure)] { handle_connect_failure(f); });
}

void ControlPlane::handle_connect_failure(const proxy::ConnectFailure& failure) {
  auto it = index_.find(failure.member_id);
  if (stopped_ || it == index_.end()) return;  // a member removed since
  PoolRuntime& pool = pools_[it->second.first];
  MemberRuntime& m = pool.members[it->second.second];
  // Without a monitor nothing could bring the member back, so only the counter records it.
  if (!pool.config.health_monitor || m.passive_out) return;
  m.passive_out = true;
  log::warn("pool {} member {} {}: connect failed ({}); out of rotation until a check passes",
            pool.config.name, m.config.name, m.address ? m.address->to_string() : m.config.address,
            failure.reason);
  if (failure.silent) {
    // The host did not answer at all: it may be powered off, and then its sessions hang without
    // a FIN or RST. Probe them now rather than after the normal keepalive idle time.
    for (auto& w : workers_) w->probe_member_sessions(m.id, kSuspectProbe);
  }
  checker_->check_now(m.id);
  refresh_pool(it->second.first, "passive failure");
}

void ControlPlane::on_check(const health::Event& e) {
  auto it = index_.find(e.member_id);
  if (stopped_ || it == index_.end()) return;
  MemberRuntime& m = pools_[it->second.first].members[it->second.second];
  m.last_check = e.result;
  m.last_check_at = wall_now();
  m.health = e.health;
  m.first_check = e.previous == model::Health::kUnchecked;
  m.successes = e.successes;
  m.failures = e.failures;
  if (e.result.ok()) m.passive_out = false;
  refresh_pool(it->second.first, "check");
}

// Recomputes statuses and the rotation of one pool; logs what changed and publishes a new
// snapshot to the workers when the set of candidates changed.
void ControlPlane::refresh_pool(size_t pool_index, const std::string& cause) {
  PoolRuntime& pool = pools_[pool_index];
  const bool has_monitor = pool.config.health_monitor.has_value();
  std::vector<RotationInput> inputs;
  std::vector<model::OperatingStatus> statuses;
  for (MemberRuntime& m : pool.members) {
    const model::OperatingStatus before = m.status;
    // Up by the thresholds but answering with a failure (a /readyz that says [-]shutdown): no new
    // connections from the first such answer, established ones continue.
    const bool draining = has_monitor && m.health == model::Health::kUp && m.last_check &&
                          m.last_check->outcome == model::Outcome::kBadStatus;
    m.draining = draining;
    m.status = model::member_status({.enabled = m.config.enabled,
                                     .weight = m.config.weight,
                                     .draining = draining,
                                     .has_monitor = has_monitor,
                                     .health = m.health});
    if (m.status != before && cause != "start-up") {
      m.state_since = wall_now();
      record_transition(pool, m, before);
      if (m.status == model::OperatingStatus::kError && pool.config.shutdown_sessions_on_down &&
          !answered(m.last_check)) {
        close_sessions(pool, m);
      }
    }
    statuses.push_back(m.status);
    inputs.push_back({.enabled = m.config.enabled,
                      .weight = m.config.weight,
                      .backup = m.config.backup,
                      .has_monitor = has_monitor,
                      .health = m.health,
                      .passive_out = m.passive_out,
                      .draining = draining,
                      .resolved = m.address.has_value()});
  }
  pool.status = model::pool_status(statuses);
  const Rotation rotation = choose_rotation(inputs, pool.config.fail_open);
  if (rotation.fail_open != pool.fail_open_active) {
    if (rotation.fail_open) {
      log::error("pool {}: no member is usable; failing open: routing to all {} enabled members",
                 pool.config.name, rotation.members.size());
    } else {
      log::info("pool {}: a member is usable again; no longer failing open", pool.config.name);
    }
    pool.fail_open_active = rotation.fail_open;
  }
  if (rotation.members.empty() && !pool.members.empty() && cause != "start-up") {
    log::error("pool {}: no member can take connections; new connections are closed",
               pool.config.name);
  }

  auto next = std::make_shared<proxy::PoolSnapshot>();
  next->name = pool.config.name;
  next->algorithm = pool.config.algorithm;
  next->connect_timeout = pool.config.connect_timeout;
  next->retries = pool.config.retries;
  next->hedge_after = pool.config.hedge_after;
  next->backend_dead_peer = net::dead_peer_options(pool.config.dead_peer_timeout);
  for (MemberRuntime& m : pool.members) m.in_rotation = false;
  for (size_t i : rotation.members) {
    MemberRuntime& m = pool.members[i];
    m.in_rotation = true;
    next->candidates.push_back({.member_id = m.id,
                                .name = m.config.name,
                                .address = *m.address,
                                .weight = m.config.weight,
                                .stats = m.stats});
  }
  auto same = [](const proxy::PoolSnapshot& a, const proxy::PoolSnapshot& b) {
    return std::ranges::equal(a.candidates, b.candidates, [](const auto& x, const auto& y) {
      return x.member_id == y.member_id && x.weight == y.weight;
    });
  };
  if (pool.snapshot && same(*pool.snapshot, *next)) return;
  next->version = ++snapshot_version_;
  pool.snapshot = std::move(next);
  publish();
}

// Closes the member's sessions on every worker so that their clients reconnect through a healthy
// member; logs how many once every worker has answered.
void ControlPlane::close_sessions(const PoolRuntime& pool, const MemberRuntime& m) {
  struct Tally {
    size_t closed = 0;
    size_t pending = 0;
  };
  auto tally = std::make_shared<Tally>(Tally{.pending = workers_.size()});
  const std::string what = fmt::format("pool {} member {}", pool.config.name, m.config.name);
  for (auto& w : workers_) {
    w->close_member_sessions(m.id, [this, tally, what](size_t n) {
      boost::asio::post(io_, [tally, what, n] {
        tally->closed += n;
        if (--tally->pending == 0 && tally->closed > 0) {
          log::info("{}: closed {} sessions so that their clients reconnect elsewhere", what,
                    tally->closed);
        }
      });
    });
  }
}

void ControlPlane::publish() {
  if (workers_.empty()) return;
  std::vector<proxy::PoolSnapshotPtr> snapshots;
  for (const PoolRuntime& p : pools_) snapshots.push_back(p.snapshot);
  for (auto& w : workers_) w->publish(snapshots);
}

void ControlPlane::record_transition(const PoolRuntime& pool, const MemberRuntime& m,
                                     model::OperatingStatus before) {
  const size_t up = static_cast<size_t>(std::ranges::count_if(pool.members, [](const MemberRuntime& x) {
    return x.status == model::OperatingStatus::kOnline ||
           x.status == model::OperatingStatus::kNoMonitor;
  }));
  const std::string line = transition_line({
      .pool = pool.config.name,
      .member = m.config.name,
      .address = m.address ? m.address->to_string() : m.config.address,
      .before = before,
      .after = m.status,
      .check = m.last_check,
      .first_check = m.first_check,
      .successes = m.successes,
      .failures = m.failures,
      .healthy_threshold = pool.config.health_monitor ? pool.config.health_monitor->healthy_threshold : 0,
      .unhealthy_threshold = pool.config.health_monitor ? pool.config.health_monitor->unhealthy_threshold : 0,
      .members_up = up,
      .members_total = pool.members.size(),
  });
  if (m.status == model::OperatingStatus::kError) {
    log::warn("{}", line);
  } else {
    log::info("{}", line);
  }
  transitions_.push_back({.at = wall_now(), .pool = pool.config.name, .member = m.config.name, .message = line});
  while (transitions_.size() > kMaxTransitions) transitions_.pop_front();
}

}  // namespace vigil::daemon
