// WorkerSink: Pools' PoolSink over the running workers. Each worker answers on its own thread;
// the answers are handed back to the control thread's loop. Owned by the ControlPlane beside the
// workers; control thread only.
#pragma once

#include <memory>
#include <vector>

#include "daemon/pool_seams.h"
#include "proxy/worker.h"

namespace boost::asio {
class io_context;
}

namespace vigil::daemon {

class WorkerSink final : public PoolSink {
 public:
  // Requires: `io` runs the control thread, and outlives `workers`, which outlive this.
  WorkerSink(boost::asio::io_context& io,
             const std::vector<std::unique_ptr<proxy::Worker>>& workers)
      : io_(io), workers_(workers) {}

  void publish(proxy::PoolSlots slots) override;
  // Runs after each publish, on the control thread: what follows from the pools' new snapshots
  // outside the workers (the co-location redirects).
  void after_publish(std::function<void()> f) { after_publish_ = std::move(f); }
  void close_sessions(std::shared_ptr<const proxy::BackendStats> member,
                      std::function<void()> closed) override;
  void probe_sessions(std::shared_ptr<const proxy::BackendStats> member,
                      const net::DeadPeerOptions& probe) override;

 private:
  boost::asio::io_context& io_;
  const std::vector<std::unique_ptr<proxy::Worker>>& workers_;
  std::function<void()> after_publish_;
};

}  // namespace vigil::daemon
