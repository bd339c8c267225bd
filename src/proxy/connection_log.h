// The connection log (a listener's `log_connections`): one fixed-size record per session end,
// put by the worker into its own bounded ring and taken out by the control thread, which writes
// the lines. The worker never waits: when the ring is full the record is dropped and counted.
// ConnectionRing: one producer (the worker's thread), one consumer (the control thread); no lock.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/clock.h"

namespace vigil::proxy {

// How a session ended.
enum class SessionEnd : uint8_t {
  kClientClose,  // the client shut its side first, or both closed in order
  kMemberClose,  // the member shut its side first
  kClientReset,
  kMemberReset,
  kIdleTimeout,  // no byte either way for the listener's idle_timeout
  kMemberDown,   // vigil closed it: its member was marked down, put in maintenance, or silent
  kNoMember,     // no member could be reached
  kStopped,      // vigil stopped
  kKilled,       // an operator closed it
  kAddressLost,  // this host lost the address the client connected to (it moved to another node)
};
std::string_view to_string(SessionEnd e);

struct ConnectionRecord {
  static constexpr size_t kNameSize = 48;  // longer listener names are cut
  TimePoint accepted{};                    // the worker's steady clock
  TimePoint connected{};                   // the member connect that completed last; zero: none
  TimePoint ended{};
  uint64_t bytes_in = 0;       // client -> vigil
  uint64_t bytes_out = 0;      // vigil -> client
  uint64_t member_serial = 0;  // BackendStats::serial of the last member; 0: none
  std::array<char, 16> client_ip{};
  uint8_t client_ip_size = 0;  // 4 or 16
  uint16_t client_port = 0;
  SessionEnd end = SessionEnd::kClientClose;
  uint8_t retries = 0;  // connects after the first, replays included (capped at 15)
  bool replayed = false;
  std::array<char, kNameSize> listener{};  // NUL-padded

  std::string_view listener_name() const;
  std::string client() const;  // "10.0.0.1:51234", "[::1]:51234"
};

class ConnectionRing {
 public:
  // `capacity` is rounded up to a power of two.
  explicit ConnectionRing(size_t capacity = 4096);

  // Producer thread only. False (and counted) when the ring is full.
  bool push(const ConnectionRecord& r);
  // Consumer thread only. Calls f(record) for every record in the ring now; returns how many.
  template <class F>
  size_t drain(F&& f) {
    const uint64_t tail = tail_.load(std::memory_order_relaxed);
    const uint64_t head = head_.load(std::memory_order_acquire);
    for (uint64_t i = tail; i != head; ++i) f(slots_[i & mask_]);
    tail_.store(head, std::memory_order_release);
    return static_cast<size_t>(head - tail);
  }
  // Any thread.
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  size_t capacity() const { return mask_ + 1; }

 private:
  std::unique_ptr<ConnectionRecord[]> slots_;
  size_t mask_ = 0;
  // On their own cache lines: the worker writes head_, the control thread tail_.
  alignas(64) std::atomic<uint64_t> head_{0};
  uint64_t tail_seen_ = 0;  // the producer's last look at tail_: fewer cross-core reads
  alignas(64) std::atomic<uint64_t> tail_{0};
  alignas(64) std::atomic<uint64_t> dropped_{0};
};

}  // namespace vigil::proxy
