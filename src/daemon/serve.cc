// `vigil serve`: load, start, run until a signal.
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <csignal>

#include "admin/token_files.h"
#include "base/asio_timer.h"
#include "base/file.h"
#include "base/free_heap.h"
#include "base/log.h"
#include "config/loader.h"
#include "daemon/announced_reload.h"
#include "daemon/control_plane.h"
#include "daemon/fd_budget.h"
#include "daemon/service_notify.h"
#include "daemon/upgrade.h"

namespace vigil::daemon {
namespace {

size_t count_members(const model::Config& c) {
  size_t n = 0;
  for (const auto& p : c.pools) n += p.members.size();
  return n;
}

void wait_for_signals(boost::asio::signal_set& signals, ControlPlane& control,
                      boost::asio::io_context& io) {
  signals.async_wait([&](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    if (signo == SIGUSR2) {
      log::info("SIGUSR2: upgrading");
      [[maybe_unused]] auto started = control.upgrade();  // logs its own errors
    } else if (signo == SIGHUP && control.stopping()) {
      log::warn("SIGHUP: not reloading; vigil is stopping");
    } else if (signo == SIGHUP) {
      log::info("SIGHUP: reloading");
      [[maybe_unused]] auto reloaded = announced_reload(control);
    } else if (const Duration grace = control.shutdown_grace();
               signo == SIGTERM && !control.stopping() && grace > Duration::zero()) {
      const auto grace_s = std::chrono::duration_cast<std::chrono::seconds>(grace).count();
      log::info(
          "SIGTERM: stopping; no new connections, open sessions have up to {} s to end "
          "(another SIGTERM or a SIGINT stops at once)",
          grace_s);
      service::stopping("stopping (SIGTERM): letting sessions finish");
      control.begin_graceful_stop(grace, [&io] { io.stop(); });
    } else {
      log::info("{}: stopping{}", signo == SIGTERM ? "SIGTERM" : "SIGINT",
                control.stopping() ? " at once" : "");
      service::stopping(signo == SIGTERM ? "stopping (SIGTERM)" : "stopping (SIGINT)");
      io.stop();
      return;
    }
    wait_for_signals(signals, control, io);
  });
}

// READY=1 once the first checks have their results (or their bound passed): systemd then starts
// what comes After= vigil knowing that members already have a verdict.
// `told`: set once an upgrade's parent was told (ControlPlane::fold_state).
void announce_ready(boost::asio::steady_timer& timer, ControlPlane& control, TimePoint deadline,
                    bool& told) {
  if (control.pools().first_checks_done() || std::chrono::steady_clock::now() >= deadline) {
    if (!control.pools().first_checks_done()) log::warn("first checks still running; ready anyway");
    if (upgrade::started_by_upgrade()) service::main_pid(::getpid());
    service::ready("serving");
    // Only now does the old process stop accepting: members have their verdicts here.
    upgrade::tell_parent_ready();
    told = true;
    return;
  }
  timer.expires_after(std::chrono::milliseconds(20));
  timer.async_wait([&timer, &control, deadline, &told](const boost::system::error_code& ec) {
    if (!ec) announce_ready(timer, control, deadline, told);
  });
}

// WATCHDOG=1 from the control thread, and only while every worker's loop answers its ping: a
// wedged worker, or a wedged control thread, makes systemd restart vigil.
void keep_watchdog(boost::asio::steady_timer& timer, ControlPlane& control, Duration every) {
  timer.expires_after(every);
  timer.async_wait([&timer, &control, every](const boost::system::error_code& ec) {
    if (ec) return;
    if (const auto problem = control.serving_problem(); !problem) {
      service::watchdog();
    } else {
      log::error("{}; withholding the watchdog", *problem);
    }
    keep_watchdog(timer, control, every);
  });
}

}  // namespace

int serve(const ServeOptions& options) {
  // A peer that resets while we write must not kill the process; send() uses MSG_NOSIGNAL, but
  // OpenSSL and Asio may write without it.
  std::signal(SIGPIPE, SIG_IGN);
  bound_free_heap();  // before the threads: the YAML check's, the workers', the API's
  config::LoadResult loaded = config::load_file(options.config_path);
  if (loaded.process) set_log_format(loaded.process->log.format);  // before the first line
  for (const auto& d : loaded.diagnostics) {
    if (d.severity == config::Diagnostic::Severity::kError) {
      log::error("{}", d.to_string());
    } else {
      log::warn("{}", d.to_string());
    }
  }
  if (!loaded.ok()) {
    log::error("{}: invalid configuration, not starting (run `vigil check -c {}`)",
               options.config_path, options.config_path);
    return 1;
  }
  model::Process process = std::move(*loaded.process);
  model::Config config = std::move(*loaded.config);
  if (!options.token_file.empty()) process.admin.token_file = options.token_file;
  auto tokens = admin::read_admin_tokens(process.admin, /*warn=*/true);
  if (!tokens) {
    log::error("{}", tokens.error().message);
    return 1;
  }
  // Before the budget is computed from it (fd_budget.h), as HAProxy does.
  raise_fd_limit();
  log::info("vigil serving {}: {} listeners, {} pools, {} members", options.config_path,
            config.listeners.size(), config.pools.size(), count_members(config));

  boost::asio::io_context io;
  // The control thread's clocks, for everything it runs to share (tests hand in manual ones).
  const SteadyClock clock;
  AsioTimerSource timers(io);
  const SystemClock wall;
  // Before the listeners accept: the signal set takes descriptors of its own, and a flood of
  // clients from the first instant can hold every one (seen 2026-12-05 with a limit of 65 under
  // ASan: the set's constructor threw and vigil exited). A signal that arrives meanwhile waits in
  // the set for wait_for_signals().
  boost::asio::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
  signals.add(SIGUSR2);
  ControlPlane control(io, clock, timers, wall, options, std::move(process), std::move(config),
                       std::move(*tokens));
  if (auto started = control.start(); !started) {
    log::error("{}", started.error().message);
    return 1;
  }
  // Start-up frees what loading and applying ten thousand listeners took (13 MB at that size)
  // once the work it posted has run: given back then, not at the first trim tick 5 s later.
  boost::asio::post(io, [] { release_free_heap(); });
  if (!options.ready_file.empty()) {
    if (auto w = write_file_atomic(options.ready_file, control.ready_json()); !w) {
      log::error("--ready-file: {}", w.error().message);
      return 1;
    }
  }
  wait_for_signals(signals, control, io);
  boost::asio::steady_timer ready_timer(io);
  bool ready_told = false;
  announce_ready(ready_timer, control,
                 std::chrono::steady_clock::now() + control.pools().first_checks_bound(),
                 ready_told);
  boost::asio::steady_timer watchdog_timer(io);
  if (const Duration every = service::watchdog_interval(); every > Duration::zero()) {
    keep_watchdog(watchdog_timer, control, every / 2);  // sd_watchdog_enabled(3): half the interval
  }
  io.run();
  const bool graceful = control.stopping();
  const size_t cut = control.stop();
  control.fold_state(ready_told);
  control.remove_admin_socket(ready_told);
  if (graceful) {
    log::info("stopped: waited for {} sessions; {} cut at the deadline", control.sessions_at_stop(),
              cut);
  } else {
    log::info("stopped; {} sessions cut", cut);
  }
  return 0;
}

}  // namespace vigil::daemon
