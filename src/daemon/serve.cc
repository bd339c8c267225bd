// `vigil serve`: load, start, run until a signal.
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>

#include "base/file.h"
#include "base/log.h"
#include "config/loader.h"
#include "daemon/control_plane.h"
#include "daemon/fd_budget.h"

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
    if (signo == SIGHUP) {
      log::info("SIGHUP: reloading");
      (void)control.reload();  // logs its own errors; the running configuration stays on error
      wait_for_signals(signals, control, io);
      return;
    }
    log::info("{}: stopping", signo == SIGTERM ? "SIGTERM" : "SIGINT");
    control.stop();
    io.stop();
  });
}

}  // namespace

int serve(const ServeOptions& options) {
  // A peer that resets while we write must not kill the process; send() uses MSG_NOSIGNAL, but
  // OpenSSL and Asio may write without it.
  std::signal(SIGPIPE, SIG_IGN);
  config::LoadResult loaded = config::load_file(options.config_path);
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
  model::Config config = std::move(*loaded.config);
  if (!options.token_file.empty()) config.admin.token_file = options.token_file;
  std::string token;
  if (!config.admin.token_file.empty()) {
    auto t = read_secret_file(config.admin.token_file);
    if (!t) {
      log::error("admin.token_file: {}", t.error().message);
      return 1;
    }
    token = std::move(*t);
  }
  // Before the budget is computed from it (fd_budget.h), as HAProxy does.
  raise_fd_limit();
  log::info("vigil serving {}: {} listeners, {} pools, {} members", options.config_path,
            config.listeners.size(), config.pools.size(), count_members(config));

  boost::asio::io_context io;
  ControlPlane control(io, options, std::move(config), std::move(token));
  if (auto started = control.start(); !started) {
    log::error("{}", started.error().message);
    return 1;
  }
  if (!options.ready_file.empty()) {
    if (auto w = write_file_atomic(options.ready_file, control.ready_json()); !w) {
      log::error("--ready-file: {}", w.error().message);
      return 1;
    }
  }
  boost::asio::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
  wait_for_signals(signals, control, io);
  io.run();
  control.stop();
  log::info("stopped");
  return 0;
}

}  // namespace vigil::daemon
