#include "daemon/upgrade.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "base/file.h"
#include "base/log.h"
#include "net/socket.h"

extern char** environ;

namespace vigil::daemon::upgrade {
namespace {

int ready_fd = -1;  // the new process's write end; -1 once written, or without a parent
bool by_upgrade = false;

std::optional<int> to_int(std::string_view s) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// The highest descriptor open now, for the fallback when close_range() is missing (kernels
// before 5.11): looping up to a raised RLIMIT_NOFILE would take a million syscalls.
int highest_fd() {
  int highest = 2;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (dirent* e = ::readdir(d)) {
      if (auto n = to_int(e->d_name)) highest = std::max(highest, *n);
    }
    ::closedir(d);
  }
  return highest;
}

}  // namespace

std::string encode(const std::vector<PassedFd>& fds) {
  std::string out;
  for (const PassedFd& f : fds) {
    if (!out.empty()) out += ",";
    out += fmt::format("{}:{}:{}", f.listener_id, f.worker, f.fd);
  }
  return out;
}

std::vector<PassedFd> decode(std::string_view text) {
  std::vector<PassedFd> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    // From the right: ids are the config's or the API's, the numbers are ours.
    const size_t last = item.rfind(':');
    if (last == std::string_view::npos || last == 0) continue;
    const size_t middle = item.rfind(':', last - 1);
    if (middle == std::string_view::npos || middle == 0) continue;
    const auto worker = to_int(item.substr(middle + 1, last - middle - 1));
    const auto fd = to_int(item.substr(last + 1));
    if (!worker || !fd || *worker < 0 || *fd < 3) continue;
    out.push_back(
        {.listener_id = std::string(item.substr(0, middle)), .worker = *worker, .fd = *fd});
  }
  return out;
}

Result<Command> command_at_start() {
  auto cmdline = read_file("/proc/self/cmdline");
  if (!cmdline) return std::unexpected(cmdline.error());
  Command c;
  std::string_view rest = *cmdline;
  while (!rest.empty()) {
    const size_t nul = rest.find('\0');
    c.args.emplace_back(rest.substr(0, nul));
    rest = nul == std::string_view::npos ? std::string_view{} : rest.substr(nul + 1);
  }
  if (c.args.empty() || c.args[0].empty()) return fail("/proc/self/cmdline names no program");
  const std::string& argv0 = c.args[0];
  if (argv0.starts_with('/')) {
    c.path = argv0;
  } else if (argv0.find('/') != std::string::npos) {
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd) == nullptr) return fail("getcwd: " + net::errno_string(errno));
    c.path = std::string(cwd) + "/" + argv0;
  } else {
    // Found through PATH by the shell: the same search, now, gives the same file.
    const char* path = std::getenv("PATH");
    std::string_view dirs = path ? path : "";
    while (!dirs.empty() && c.path.empty()) {
      const size_t colon = dirs.find(':');
      const std::string candidate = std::string(dirs.substr(0, colon)) + "/" + argv0;
      dirs = colon == std::string_view::npos ? std::string_view{} : dirs.substr(colon + 1);
      if (candidate.starts_with('/') && ::access(candidate.c_str(), X_OK) == 0) c.path = candidate;
    }
    if (c.path.empty()) return fail("cannot find " + argv0 + " on PATH");
  }
  return c;
}

Inherited Inherited::from_environment() {
  Inherited in;
  if (const char* env = std::getenv(kInheritEnv)) {
    in.fds_ = decode(env);
    ::unsetenv(kInheritEnv);
  }
  if (const char* env = std::getenv(kReadyFdEnv)) {
    if (auto fd = to_int(env); fd && *fd > 2 && ::fcntl(*fd, F_GETFD) >= 0) {
      ready_fd = *fd;
      ::fcntl(ready_fd, F_SETFD, FD_CLOEXEC);
      by_upgrade = true;
    }
    ::unsetenv(kReadyFdEnv);
  }
  for (const PassedFd& f : in.fds_) ::fcntl(f.fd, F_SETFD, FD_CLOEXEC);
  return in;
}

std::optional<net::Fd> Inherited::take(std::string_view listener_id, int worker) {
  for (auto it = fds_.begin(); it != fds_.end(); ++it) {
    if (it->listener_id == listener_id && it->worker == worker) {
      net::Fd fd(it->fd);
      fds_.erase(it);
      return fd;
    }
  }
  return std::nullopt;
}

void Inherited::close_unused() {
  for (const PassedFd& f : fds_) {
    log::warn(
        "upgrade: the socket of listener {} worker {} (fd {}) is not used by this configuration; "
        "closed, with any connection waiting in it",
        f.listener_id, f.worker, f.fd);
    ::close(f.fd);
  }
  fds_.clear();
}

bool started_by_upgrade() { return by_upgrade; }

void tell_parent_ready() {
  if (ready_fd < 0) return;
  constexpr std::string_view kReady = "ready\n";
  if (::write(ready_fd, kReady.data(), kReady.size()) != static_cast<ssize_t>(kReady.size())) {
    log::warn("upgrade: cannot tell the old process that this one is ready: {}",
              net::errno_string(errno));
  }
  ::close(ready_fd);
  ready_fd = -1;
}

Result<Child> spawn(const Command& command, const std::vector<PassedFd>& fds) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return fail("pipe: " + net::errno_string(errno));
  net::Fd read_end(pipe_fds[0]);
  net::Fd write_end(pipe_fds[1]);
  // Everything the child needs is built here: between fork() and exec() only async-signal-safe
  // calls are allowed, so no allocation.
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view v(*e);
    // WATCHDOG_PID names this process: without it, the new one may send the pings itself.
    if (v.starts_with(std::string(kInheritEnv) + "=") ||
        v.starts_with(std::string(kReadyFdEnv) + "=") || v.starts_with("WATCHDOG_PID=")) {
      continue;
    }
    env.emplace_back(v);
  }
  env.push_back(std::string(kInheritEnv) + "=" + encode(fds));
  env.push_back(fmt::format("{}={}", kReadyFdEnv, write_end.get()));
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = command.args;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<int> keep;
  for (const PassedFd& f : fds) keep.push_back(f.fd);
  keep.push_back(write_end.get());
  const int highest = highest_fd();

  const pid_t pid = ::fork();
  if (pid < 0) return fail("fork: " + net::errno_string(errno));
  if (pid == 0) {
    // Asio's and the checks' sockets are not all close-on-exec: none of them may leak into the
    // new process, where nothing would ever close them.
    if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
      for (int fd = 3; fd <= highest; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    for (int fd : keep) ::fcntl(fd, F_SETFD, 0);
    ::execve(command.path.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  return Child{.pid = pid, .ready = std::move(read_end)};
}

}  // namespace vigil::daemon::upgrade
