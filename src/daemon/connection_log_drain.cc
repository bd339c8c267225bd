// The connection log's consumer side: every 200 ms while a listener logs its connections, the
// control thread takes the records out of each worker's ring and writes their lines. The workers
// never wait for it; what their full rings dropped is said here, at most every 10 s.
#include <vector>

#include "base/log.h"
#include "daemon/control_plane.h"

namespace vigil::daemon {
namespace {

constexpr Duration kDrainEvery = std::chrono::milliseconds(200);
constexpr Duration kDropsSaidEvery = std::chrono::seconds(10);

}  // namespace

void ControlPlane::schedule_connection_log() {
  if (stopped_ || connection_log_->armed()) return;
  if (listeners_->logging() > 0) connection_log_->arm(clock_.now() + kDrainEvery);
}

void ControlPlane::drain_connection_logs() {
  std::vector<proxy::ConnectionRecord> records;
  uint64_t dropped = 0;
  for (auto& w : workers_) {
    w->connection_log().drain([&](const proxy::ConnectionRecord& r) { records.push_back(r); });
    dropped += w->connection_log().dropped();
  }
  if (!records.empty()) {
    std::vector<const PoolRuntime*> pools;
    for (const auto& [id, p] : pools_->all()) pools.push_back(p.get());
    connection_log_writer_.learn(pools);
    connection_log_writer_.write(records, clock_.now(), wall_.now());
  }
  const TimePoint now = clock_.now();
  if (dropped > connection_log_dropped_ &&
      (connection_log_drop_said_at_ == TimePoint{} ||
       now - connection_log_drop_said_at_ >= kDropsSaidEvery)) {
    log::warn(
        "connection log: {} records dropped since the last warning (the workers' rings were "
        "full: sessions end faster than the log is written)",
        dropped - connection_log_dropped_);
    connection_log_dropped_ = dropped;
    connection_log_drop_said_at_ = now;
  }
  schedule_connection_log();
}

}  // namespace vigil::daemon
