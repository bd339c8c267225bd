// Upgrading vigil in place (`vigil upgrade`, SIGUSR2): the binary on disk is started again with
// the same arguments and inherits the listening sockets, then tells this process it is ready
// through a pipe. Plain functions and one value type; the control thread calls them.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "net/fd.h"

namespace vigil::daemon::upgrade {

// The sockets handed to the new process: "listener-id:worker:fd,...". The admin API's socket is
// listener kAdminSocket, worker 0.
inline constexpr const char* kInheritEnv = "VIGIL_INHERIT_FDS";
// The write end of the pipe the new process writes "ready\n" to once it serves.
inline constexpr const char* kReadyFdEnv = "VIGIL_UPGRADE_READY_FD";
inline constexpr std::string_view kAdminSocket = "admin";
// The admin API's Unix socket (admin.socket), listener kAdminUnixSocket, worker 0: the new process
// serves on the same socket rather than unlinking and binding the path again, so that no CLI call
// meets a missing file during the handover.
inline constexpr std::string_view kAdminUnixSocket = "admin-unix";
// The members' health state (health_handover.h), a memfd, as listener kHealthState, worker 0.
inline constexpr std::string_view kHealthState = "health";

struct PassedFd {
  std::string listener_id;
  int worker = 0;
  int fd = -1;
  bool operator==(const PassedFd&) const = default;
};
std::string encode(const std::vector<PassedFd>& fds);
// Entries that do not parse are skipped: a hand-set variable must not stop vigil from starting.
std::vector<PassedFd> decode(std::string_view text);

// What to run again: argv[0] made absolute at start-up, not /proc/self/exe, which names the old
// binary's inode once a package upgrade has replaced the file. Read once, before any chdir.
struct Command {
  std::string path;
  std::vector<std::string> args;  // argv, argv[0] included
};
Result<Command> command_at_start();

// The sockets the process that started this one passed on (read once from the environment,
// which then no longer names them). Each is taken at most once; the rest are closed.
class Inherited {
 public:
  static Inherited from_environment();
  bool empty() const { return fds_.empty(); }
  size_t size() const { return fds_.size(); }
  std::optional<net::Fd> take(std::string_view listener_id, int worker);
  // Closes what nobody took (a listener gone from the config, fewer workers); logs each.
  void close_unused();

 private:
  std::vector<PassedFd> fds_;
};

// True when this process was started by an upgrade (it has a parent waiting for "ready").
bool started_by_upgrade();
// In the new process: tells the old one that it serves. At most once; nothing without a parent.
void tell_parent_ready();

struct Child {
  pid_t pid = -1;
  net::Fd ready;  // read end: "ready\n", or EOF when the child exited first
};
// Starts `command` with `fds` inherited (their FD_CLOEXEC cleared in the child only) and every
// other descriptor of this process closed on exec.
Result<Child> spawn(const Command& command, const std::vector<PassedFd>& fds);

}  // namespace vigil::daemon::upgrade
