// Whether vigil is serving, for systemd's watchdog and for /healthz: every worker's event loop
// answers a message through its mailbox. (Whether the first checks have their results, for
// READY=1, is Pools::first_checks_done().)
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
  update_redirects();  // a failed nftables call is tried again from here
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
