// Counters the data plane keeps per member and per listener. Owned (via shared_ptr) by the control
// thread's runtime state and referenced from snapshots; workers bump them with relaxed atomics
// (once per event, bytes once per pump pass, never per packet) and the control thread reads them
// for status, /metrics and the Octavia stats (daemon/view.cc copies them into the views).
#pragma once

#include <atomic>
#include <cstdint>

#include "base/clock.h"
#include "model/disruption.h"

namespace vigil::proxy {

struct BackendStats {
  // Names the member in connection-log records, which outlive any pointer to it; never reused.
  const uint64_t serial = next_serial();
  std::atomic<uint64_t> active{0};
  std::atomic<uint64_t> total{0};
  std::atomic<uint64_t> connect_failures{0};
  std::atomic<uint64_t> bytes_in{0};   // backend -> client
  std::atomic<uint64_t> bytes_out{0};  // client -> backend
  // What the member's faults cost its clients (model::DisruptionCounts says what each counts).
  // Bumped only where a session leaves the member or fails because of it, never per byte.
  std::atomic<uint64_t> sessions_closed{0};
  std::atomic<uint64_t> retries{0};
  std::atomic<uint64_t> hedges{0};
  std::atomic<uint64_t> replays{0};
  std::atomic<uint64_t> failed_sessions{0};

  // When a worker last reported the member suspect (MemberSuspect), in steady-clock ticks; 0:
  // never. One report per member per period across every worker: a slow member's many late first
  // flights cost the control thread one message and one check, not one each.
  std::atomic<Duration::rep> suspect_reported_at{0};

  // True when the caller is to report the member suspect at `now`: none was reported within
  // `period` before. A compare-and-swap, so of workers racing exactly one wins; never blocks.
  bool take_suspect_report(TimePoint now, Duration period) {
    const Duration::rep at = now.time_since_epoch().count();
    Duration::rep last = suspect_reported_at.load(std::memory_order_relaxed);
    if (last != 0 && at - last < period.count()) return false;
    return suspect_reported_at.compare_exchange_strong(last, at, std::memory_order_relaxed);
  }

  model::DisruptionCounts disruption() const {
    constexpr auto r = std::memory_order_relaxed;
    return {.sessions_closed = sessions_closed.load(r),
            .retries = retries.load(r),
            .hedges = hedges.load(r),
            .replays = replays.load(r),
            .failed_sessions = failed_sessions.load(r)};
  }

 private:
  static uint64_t next_serial() {
    static std::atomic<uint64_t> last{0};
    return last.fetch_add(1, std::memory_order_relaxed) + 1;
  }
};

struct ListenerStats {
  std::atomic<uint64_t> active{0};
  std::atomic<uint64_t> total{0};
  std::atomic<uint64_t> rejected{0};    // refused at max_connections
  std::atomic<uint64_t> no_backend{0};  // closed because no member could be reached
  std::atomic<uint64_t> replayed{0};    // first flights sent again to another member
  // Connects to members (or their first bytes) that failed: BackendStats::connect_failures
  // summed over the members this listener's sessions tried.
  std::atomic<uint64_t> connect_failures{0};
  // Connects to another member after one failed (replays included); a hedge is not a retry.
  std::atomic<uint64_t> retried{0};
  std::atomic<uint64_t> hedged{0};  // second connects started because the first was slow
  // Connections accept_proxy closed: from outside trusted_sources, with a malformed header, or
  // without a complete one within proxy_header_timeout. Per reason, not per source: a label per
  // client address would grow without bound; the log line names the address.
  std::atomic<uint64_t> proxy_untrusted{0};
  std::atomic<uint64_t> proxy_invalid{0};
  std::atomic<uint64_t> proxy_timeout{0};
  std::atomic<uint64_t> refused_cidr{0};  // closed at accept: from outside allowed_cidrs
  std::atomic<uint64_t> bytes_in{0};      // client -> vigil
  std::atomic<uint64_t> bytes_out{0};     // vigil -> client
};

}  // namespace vigil::proxy
