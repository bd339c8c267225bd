// Whether vigil is serving, for systemd's READY=1 and watchdog and for /healthz: the first checks
// have their results, and every worker's event loop answers a message through its mailbox.
#include <fmt/format.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "daemon/control_plane.h"

namespace vigil::daemon {
namespace {

// keepalived runs `vigil health` every second with fall 2: a loop silent for 2 s must fail it.
constexpr Duration kPingEvery = std::chrono::milliseconds(500);
constexpr Duration kSilentLimit = std::chrono::seconds(2);

}  // namespace

void ControlPlane::liveness_tick() {
  if (stopped_) return;
  const TimePoint now = clock_.now();
  if (ping_workers()) workers_answered_at_ = ping_sent_at_ == TimePoint{} ? now : ping_sent_at_;
  ping_sent_at_ = now;
  liveness_->arm(now + kPingEvery);
}

std::optional<std::string> ControlPlane::serving_problem() const {
  if (stopped_) return "stopping";
  const Duration silent = clock_.now() - workers_answered_at_;
  if (silent > kSilentLimit) {
    return fmt::format("a worker's event loop has not answered for {} ms",
                       std::chrono::duration_cast<std::chrono::milliseconds>(silent).count());
  }
  return std::nullopt;
}

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
