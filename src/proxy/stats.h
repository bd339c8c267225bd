// Counters the data plane keeps per member and per listener. Owned (via shared_ptr) by the control
// thread's runtime state and referenced from snapshots; workers bump them with relaxed atomics
// (once per event, bytes once per pump pass, never per packet) and the control thread reads them
// for status, /metrics and the Octavia stats (daemon/view.cc copies them into the views).
#pragma once

#include <atomic>
#include <cstdint>

namespace vigil::proxy {

struct BackendStats {
  std::atomic<uint64_t> active{0};
  std::atomic<uint64_t> total{0};
  std::atomic<uint64_t> connect_failures{0};
  std::atomic<uint64_t> bytes_in{0};   // backend -> client
  std::atomic<uint64_t> bytes_out{0};  // client -> backend
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
  std::atomic<uint64_t> hedged{0};     // second connects started because the first was slow
  std::atomic<uint64_t> bytes_in{0};   // client -> vigil
  std::atomic<uint64_t> bytes_out{0};  // vigil -> client
};

}  // namespace vigil::proxy
