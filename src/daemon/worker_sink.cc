#include "daemon/worker_sink.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

namespace vigil::daemon {

void WorkerSink::publish(proxy::PoolSlots slots) {
  for (const auto& w : workers_) w->publish(slots);
  if (after_publish_) after_publish_();
}

void WorkerSink::close_sessions(std::shared_ptr<const proxy::BackendStats> member,
                                std::function<void()> closed) {
  struct Tally {
    size_t pending = 0;
    std::function<void()> closed;
  };
  auto tally =
      std::make_shared<Tally>(Tally{.pending = workers_.size(), .closed = std::move(closed)});
  for (const auto& w : workers_) {
    w->close_member_sessions(member, [&io = io_, tally](size_t) {
      boost::asio::post(io, [tally] {
        if (--tally->pending == 0) tally->closed();
      });
    });
  }
}

void WorkerSink::probe_sessions(std::shared_ptr<const proxy::BackendStats> member,
                                const net::DeadPeerOptions& probe) {
  for (const auto& w : workers_) w->probe_member_sessions(member, probe);
}

}  // namespace vigil::daemon
