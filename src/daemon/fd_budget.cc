#include "daemon/fd_budget.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>

namespace vigil::daemon {

namespace {

// Epoll sets, eventfds, the log, the state file and its temporary, the resolver's sockets, the
// ready file, signals: what the process holds besides sessions, listeners, checks and the
// admin API, with room to spare.
constexpr uint64_t kFixed = 64;
constexpr uint64_t kFdsPerSession = 2;  // the client's and the member's
// A health check holds one socket while it runs; a member checked over a kept connection holds
// one more between checks. A TCP check keeps no connection, only a few idle sockets for all the
// members (FdNeeds::idle_check_sockets): a host of ten thousand load balancers with TCP checks
// would otherwise be told it needs twice the descriptors it does.
constexpr uint64_t kFdsPerCheckedMember = 1;
constexpr uint64_t kFdsPerKeptConnection = 1;

}  // namespace

int FdBudget::effective(int max_connections, uint64_t sum) const {
  if (!lowered || sum == 0 || max_connections <= 0) return max_connections;
  const auto share = static_cast<uint64_t>(static_cast<long double>(sessions) *
                                           static_cast<uint64_t>(max_connections) / sum);
  return static_cast<int>(std::clamp<uint64_t>(share, 1, static_cast<uint64_t>(max_connections)));
}

FdBudget plan_fds(uint64_t limit, const FdNeeds& needs) {
  FdBudget b{.limit = limit};
  // Every worker has its own listening socket per listener (SO_REUSEPORT); and each worker may
  // accept one session past a listener's limit, since they count the listener's sessions
  // together and check before they add.
  const uint64_t per_worker = needs.listeners * needs.workers;
  b.reserve = needs.reserve.value_or(kFixed + per_worker + needs.admin_connections +
                                     kFdsPerCheckedMember * needs.checked_members +
                                     kFdsPerKeptConnection * needs.kept_connections +
                                     needs.idle_check_sockets + kFdsPerSession * per_worker);
  if (limit == 0) {
    b.sessions = needs.max_connections;
    return b;
  }
  b.sessions = limit > b.reserve ? (limit - b.reserve) / kFdsPerSession : 0;
  b.lowered = needs.max_connections > b.sessions;
  return b;
}

std::optional<std::string> describe_lowering(const FdBudget& b, const FdNeeds& needs) {
  if (!b.lowered) return std::nullopt;
  return fmt::format(
      "open-file limit is {}: {} are kept for health checks, the admin API and the state file, "
      "which leaves {} client sessions (two descriptors each) where the listeners' "
      "max_connections add up to {}; each listener's max_connections is lowered in proportion "
      "so that clients cannot starve the checks; raise the limit (LimitNOFILE= in the systemd "
      "unit, ulimit -n) to about {} to serve them all",
      b.limit, b.reserve, b.sessions, needs.max_connections,
      b.reserve + kFdsPerSession * needs.max_connections);
}

namespace {

std::optional<uint64_t> number_from_environment(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  uint64_t value = 0;
  const char* end = text + std::strlen(text);
  auto [ptr, ec] = std::from_chars(text, end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace

std::optional<uint64_t> reserve_from_environment() {
  return number_from_environment("VIGIL_FD_RESERVE");
}

uint64_t idle_check_sockets() {
  return number_from_environment("VIGIL_IDLE_CHECK_SOCKETS").value_or(64);
}

uint64_t fd_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 0;
  return limit.rlim_cur;
}

uint64_t raise_fd_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
  return fd_limit();
}

}  // namespace vigil::daemon
