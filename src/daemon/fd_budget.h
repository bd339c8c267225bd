// The file-descriptor budget: how many client sessions the listeners may hold so that health
// checks, the admin API and the state file always find a descriptor (HAProxy derives maxconn
// from the fd limit the same way). Pure, so tests feed it any limit; the control thread applies
// it to the listeners' max_connections at start-up and on every reload.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace vigil::daemon {

struct FdNeeds {
  uint64_t max_connections = 0;  // the sum of the listeners' max_connections
  uint64_t listeners = 0;
  uint64_t workers = 1;
  uint64_t checked_members = 0;   // members with a monitor
  uint64_t kept_connections = 0;  // of them, checked over a kept connection (HTTP, HTTPS)
  // Sockets TCP checks keep between checks (health::CheckSockets::idle_tcp), at most one per
  // member checked over TCP.
  uint64_t idle_check_sockets = 0;
  uint64_t admin_connections = 0;  // the admin API's cap on its connections
  // Replaces the computed reserve: VIGIL_FD_RESERVE in the environment (0 keeps nothing back,
  // as before the budget: tests use it to exhaust descriptors on purpose).
  std::optional<uint64_t> reserve;
};

struct FdBudget {
  uint64_t limit = 0;     // RLIMIT_NOFILE (soft); 0: unlimited, nothing is lowered
  uint64_t reserve = 0;   // kept for everything but client sessions
  uint64_t sessions = 0;  // client sessions the rest holds (two descriptors each)
  bool lowered = false;   // the listeners' max_connections do not fit: effective() scales them

  // A listener's effective max_connections: its own when they all fit, else its share of
  // `sessions` in proportion to what it asked for, at least 1.
  int effective(int max_connections, uint64_t sum) const;

  // All that effective() reads beside a listener's own max_connections: while it is the same,
  // every listener's effective limit is too.
  struct Scale {
    bool lowered = false;
    uint64_t sessions = 0;
    uint64_t sum = 0;
    bool operator==(const Scale&) const = default;
  };
  Scale scale(uint64_t sum) const { return lowered ? Scale{true, sessions, sum} : Scale{}; }
};

// Requires: `limit` is the soft limit after raise_fd_limit().
FdBudget plan_fds(uint64_t limit, const FdNeeds& needs);

// VIGIL_FD_RESERVE, when set to a number.
std::optional<uint64_t> reserve_from_environment();
// The sockets TCP checks keep between checks (health::CheckSockets::idle_tcp): 64, or
// VIGIL_IDLE_CHECK_SOCKETS when set to a number (0: every check opens one; tests that exhaust
// descriptors on purpose use it).
uint64_t idle_check_sockets();

// What to log when the budget lowers the limits, once per change; nullopt when nothing is
// lowered.
std::optional<std::string> describe_lowering(const FdBudget& budget, const FdNeeds& needs);

// Raises the soft RLIMIT_NOFILE to the hard one, as HAProxy does, and returns the soft limit
// then (0 when unlimited or unknown). Each session holds two descriptors: the usual soft limit
// of 1024 would stop vigil at about 500 connections.
uint64_t raise_fd_limit();
// The soft RLIMIT_NOFILE now (0 when unlimited or unknown).
uint64_t fd_limit();

}  // namespace vigil::daemon
