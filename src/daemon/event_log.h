// The control plane's structured log events (base/log.h writes them as text or JSON, as
// `log.format` says): member transitions, the disruption line once a member's sessions are
// closed, and the connection log drained from the workers' rings. Control thread only.
#pragma once

#include <chrono>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "daemon/pool_state.h"
#include "daemon/runtime.h"
#include "model/config.h"
#include "model/process.h"
#include "proxy/connection_log_line.h"

namespace vigil::daemon {

void set_log_format(model::LogFormat format);

// t.line, as a "member_transition" event with the pool, member, address, statuses, reason and
// (out of service) the disruption counts.
void log_transition(const PoolRuntime& pool, const MemberRuntime& m, const MemberTransition& t);

// h.line, as a "member_health" event with the pool, member, address, the health ("up" or
// "down"), the status it keeps, why, and the check's reason.
void log_hidden_health(const PoolRuntime& pool, const MemberRuntime& m,
                       const HiddenHealthChange& h);

// disruption_line() as a "member_disruption" event.
void log_disruption(std::string_view pool, std::string_view member, std::string_view address,
                    model::OperatingStatus status, const model::DisruptionCounts& counts,
                    bool silent = false);

// The connection log: who a record's member serial is, and the clocks to date it by.
class ConnectionLogWriter {
 public:
  // Adds the members of `pools` by BackendStats::serial (before the records that name them).
  void learn(const std::vector<const PoolRuntime*>& pools);
  // Writes a line per record; `steady_now` and `wall_now` are the same moment on both clocks.
  void write(std::span<const proxy::ConnectionRecord> records, TimePoint steady_now,
             std::chrono::system_clock::time_point wall_now) const;

 private:
  std::unordered_map<uint64_t, proxy::MemberName> members_;
};

}  // namespace vigil::daemon
