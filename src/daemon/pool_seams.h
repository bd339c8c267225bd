// What Pools is handed to act on the rest of the daemon: the health checker's targets and the
// workers. Narrow on purpose, so that pools_test.cc drives Pools with small fakes; the daemon
// gives CheckerTargets and WorkerSink (worker_sink.h). Control thread only.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "health/checker.h"
#include "net/socket.h"
#include "proxy/snapshot.h"
#include "proxy/stats.h"

namespace vigil::daemon {

// The members the health checker checks, and the checks asked of it out of turn.
class CheckTargets {
 public:
  virtual ~CheckTargets() = default;
  // As health::HealthChecker::change_targets().
  virtual void change_targets(std::vector<health::Target> set,
                              const std::vector<std::string>& unset) = 0;
  virtual void check_now(const std::string& member_id) = 0;
  virtual void confirm_silence(const std::string& member_id, TimePoint by) = 0;
};

class CheckerTargets final : public CheckTargets {
 public:
  explicit CheckerTargets(health::HealthChecker& checker) : checker_(checker) {}
  void change_targets(std::vector<health::Target> set,
                      const std::vector<std::string>& unset) override {
    checker_.change_targets(std::move(set), unset);
  }
  void check_now(const std::string& member_id) override { checker_.check_now(member_id); }
  void confirm_silence(const std::string& member_id, TimePoint by) override {
    checker_.confirm_silence(member_id, by);
  }

 private:
  health::HealthChecker& checker_;
};

// Where Pools' decisions reach the data plane: every worker.
class PoolSink {
 public:
  virtual ~PoolSink() = default;
  // The pool snapshots set since the last call.
  virtual void publish(proxy::PoolSlots slots) = 0;
  // Closes the sessions of the member counted by `member`; `closed` runs on the control thread
  // once every worker has closed them (never, when there are no workers).
  virtual void close_sessions(std::shared_ptr<const proxy::BackendStats> member,
                              std::function<void()> closed) = 0;
  // Probes the member's idle sessions with `probe`'s keepalive, so that dead ones end soon.
  virtual void probe_sessions(std::shared_ptr<const proxy::BackendStats> member,
                              const net::DeadPeerOptions& probe) = 0;
};

}  // namespace vigil::daemon
