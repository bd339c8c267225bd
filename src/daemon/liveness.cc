// Whether vigil is serving, for systemd's READY=1 and watchdog: the first checks have their
// results, and every worker's event loop answers a message through its mailbox.
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "daemon/control_plane.h"

namespace vigil::daemon {

bool ControlPlane::first_checks_done() const {
  for (const auto& [id, pool] : pools_) {
    if (!pool->config.health_monitor) continue;
    for (const MemberRuntime& m : pool->members) {
      if (m.config.enabled && !m.last_check) return false;
    }
  }
  return true;
}

Duration ControlPlane::first_checks_bound() const {
  // First checks start at once (TLS ones a millisecond apart) and each ends by its timeout.
  Duration longest{};
  size_t members = 0;
  for (const auto& [id, pool] : pools_) {
    if (!pool->config.health_monitor) continue;
    longest = std::max(longest, pool->config.health_monitor->timeout);
    members += pool->members.size();
  }
  return longest + members * std::chrono::milliseconds(1) + std::chrono::seconds(5);
}

bool ControlPlane::ping_workers() {
  const bool answered = ping_answers_ == SIZE_MAX || ping_answers_ == workers_.size();
  ++ping_round_;
  ping_answers_ = 0;
  for (auto& w : workers_) {
    w->ping([this, round = ping_round_] {
      boost::asio::post(io_, [this, round] {
        if (round == ping_round_) ++ping_answers_;
      });
    });
  }
  return answered;
}

}  // namespace vigil::daemon
