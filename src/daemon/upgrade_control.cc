// The control plane's side of an upgrade: which sockets the new process gets, waiting for its
// "ready" on a pipe (on the io_context, never blocking the control thread), then the handover
// to a graceful stop; or, when the new process fails, carrying on as if nothing happened.
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>

#include "admin/server.h"
#include "base/log.h"
#include "daemon/control_plane.h"
#include "daemon/health_handover.h"
#include "daemon/service_notify.h"
#include "net/socket.h"

namespace vigil::daemon {

struct ControlPlane::Upgrade {
  explicit Upgrade(boost::asio::io_context& io) : pipe(io) {}
  pid_t pid = -1;
  boost::asio::posix::stream_descriptor pipe;
  std::array<char, 64> buffer{};
  std::string said;
  std::unique_ptr<Timer> timeout;
};

namespace {

// How long the new process may take from exec to ready, beyond its first checks' bound.
constexpr auto kStartSlack = std::chrono::seconds(30);

std::string exit_status(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return "status unknown";
  if (WIFEXITED(status)) {
    return WEXITSTATUS(status) == 127 ? "exit status 127 (cannot run the binary)"
                                      : fmt::format("exit status {}", WEXITSTATUS(status));
  }
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  return "status unknown";
}

}  // namespace

Result<int> ControlPlane::upgrade() {
  auto refused = [](std::string why) -> Result<int> {
    log::warn("upgrade refused: {}", why);
    return fail(std::move(why));
  };
  if (stopping()) return refused("vigil is stopping");
  if (upgrade_) {
    return refused(fmt::format("an upgrade is already under way (new process {})", upgrade_->pid));
  }
  if (!command_) return refused("cannot tell what to run: " + command_.error().message);
  std::vector<upgrade::PassedFd> fds;
  for (const auto& [id, l] : listeners_->all()) {
    for (size_t w = 0; w < l.worker_fds.size(); ++w) {
      if (l.worker_fds[w] >= 0) {
        fds.push_back({.listener_id = id, .worker = static_cast<int>(w), .fd = l.worker_fds[w]});
      }
    }
  }
  if (admin_ && admin_->listening_fd() >= 0) {
    fds.push_back(
        {.listener_id = std::string(upgrade::kAdminSocket), .fd = admin_->listening_fd()});
  }
  if (admin_ && admin_->unix_listening_fd() >= 0) {
    fds.push_back(
        {.listener_id = std::string(upgrade::kAdminUnixSocket), .fd = admin_->unix_listening_fd()});
  }
  // Open until the child has it: the memfd closes here when this returns.
  auto health = health_memfd(encode_health(pools_->health_to_hand_over()));
  if (health) {
    fds.push_back({.listener_id = std::string(upgrade::kHealthState), .fd = health->get()});
  } else {
    log::warn("upgrade: {}; the new process checks every member from scratch",
              health.error().message);
  }
  // The new process reads the recent transitions at its start and writes them from then on.
  transition_file_->flush();
  transition_file_->hold();
  auto child = upgrade::spawn(*command_, fds);
  if (!child) {
    log::error("upgrade failed: {}; this process keeps serving", child.error().message);
    transition_file_->release();
    return std::unexpected(child.error());
  }
  upgrade_started_ = true;
  // The new process follows etcd and keeps the cache from now on: two would write one file.
  if (shared_store_) shared_store_->pause("vigil is handing over to a new process (vigil upgrade)");
  log::info("upgrade: started {} as pid {} with {} sockets; serving until it is ready",
            command_->path, child->pid, fds.size());
  auto u = std::make_shared<Upgrade>(io_);
  u->pid = child->pid;
  u->pipe.assign(child->ready.release());
  u->timeout = timer_source_.create_timer([this] {
    if (!upgrade_) return;
    ::kill(upgrade_->pid, SIGKILL);
    upgrade_failed("the new process was not ready in time; killed it (" +
                   exit_status(upgrade_->pid) + ")");
  });
  u->timeout->arm(clock_.now() + pools_->first_checks_bound() + kStartSlack);
  upgrade_ = u;
  read_ready(u);
  return child->pid;
}

void ControlPlane::read_ready(const std::shared_ptr<Upgrade>& u) {
  u->pipe.async_read_some(boost::asio::buffer(u->buffer),
                          [this, u](const boost::system::error_code& ec, size_t n) {
                            if (upgrade_ != u) return;  // over already (timeout, stop)
                            if (!ec) {
                              u->said.append(u->buffer.data(), n);
                              if (u->said.find("ready\n") != std::string::npos) {
                                return upgrade_ready();
                              }
                              if (u->said.size() < 64) return read_ready(u);
                            }
                            upgrade_failed("the new process exited before it was ready (" +
                                           exit_status(u->pid) + "; its log says why)");
                          });
}

void ControlPlane::upgrade_ready() {
  const pid_t pid = upgrade_->pid;
  upgrade_->timeout->cancel();
  // Destroyed later: this may run inside a handler that holds it.
  boost::asio::post(io_, [u = std::move(upgrade_)] {});
  log::info("upgrade: pid {} is ready; pid {} stops accepting and lets its sessions finish", pid,
            ::getpid());
  // The new process has the admin socket; closing ours sends every request to it.
  if (admin_) admin_->stop();
  begin_graceful_stop(shutdown_grace(), [this] { io_.stop(); });
}

void ControlPlane::upgrade_failed(const std::string& why) {
  log::error("upgrade failed: {}; this process keeps serving", why);
  if (shared_store_) shared_store_->resume();
  transition_file_->release();
  boost::system::error_code ignored;
  upgrade_->pipe.close(ignored);
  upgrade_->timeout->cancel();
  boost::asio::post(io_, [u = std::move(upgrade_)] {});
}

void ControlPlane::abandon_upgrade() {
  if (!upgrade_) return;
  log::warn("stopping while upgrade pid {} starts; stopping it too", upgrade_->pid);
  transition_file_->release();
  ::kill(upgrade_->pid, SIGTERM);
  boost::system::error_code ignored;
  upgrade_->pipe.close(ignored);
  upgrade_->timeout->cancel();
  upgrade_.reset();
}

}  // namespace vigil::daemon
