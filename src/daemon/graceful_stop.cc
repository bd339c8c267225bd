// A graceful stop (SIGTERM): the listeners close at once so that new connects are refused (and
// go to the other node, or get a clean error), established sessions go on until they end or the
// grace runs out. The workers answer through their mailboxes; the tallies live on the control
// thread, so the data plane takes no lock for it.
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "base/log.h"
#include "daemon/control_plane.h"

namespace vigil::daemon {

void ControlPlane::begin_graceful_stop(Duration grace, std::function<void()> finished) {
  if (graceful_ || stopped_) return;
  graceful_ = std::make_unique<GracefulStop>();
  GracefulStop& g = *graceful_;
  g.done = std::move(finished);
  g.pending_counts = workers_.size();
  g.pending_idle = workers_.size();
  g.deadline = timer_source_.create_timer([this] { graceful_stop_over(/*deadline=*/true); });
  g.deadline->arm(clock_.now() + grace);
  update_redirects();  // the listeners close now: clients go back to the address's own process
  const auto grace_ms = std::chrono::duration_cast<std::chrono::milliseconds>(grace).count();
  for (auto& w : workers_) {
    // The callbacks run on the worker's thread: they only hand the answer over. `this` outlives
    // them: stop() joins the workers before the control plane goes.
    w->stop_accepting([this, grace_ms](size_t n) {
      boost::asio::post(io_, [this, grace_ms, n] {
        if (!graceful_ || graceful_->finished) return;
        graceful_->sessions += n;
        if (--graceful_->pending_counts == 0) {
          log::info("listeners closed; waiting up to {} ms for {} sessions to end", grace_ms,
                    graceful_->sessions);
        }
      });
    });
    w->when_idle([this] {
      boost::asio::post(io_, [this] {
        if (!graceful_ || graceful_->finished) return;
        if (--graceful_->pending_idle == 0) graceful_stop_over(/*deadline=*/false);
      });
    });
  }
}

void ControlPlane::graceful_stop_over(bool deadline) {
  if (!graceful_ || graceful_->finished) return;
  graceful_->finished = true;
  graceful_->deadline->cancel();
  if (deadline) {
    log::warn("shutdown_grace ran out with sessions still open; cutting them");
  } else {
    log::info("every session has ended");
  }
  if (graceful_->done) graceful_->done();
}

}  // namespace vigil::daemon
