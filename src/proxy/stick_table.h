// StickTable: which member each client (its masked address) was last sent to, as HAProxy's
// `stick-table type ip size 10k expire <timeout>` with `stick on src`. One per pool, shared by
// every worker (made by the control thread, carried in the pool's snapshots, kept across them),
// so that a client is placed alike whichever worker accepts it. Any thread; lock-free: find() and
// put() are a few atomic loads and stores on one group of slots, and never allocate, block or log.
// Bounded: its slots are allocated once, at construction.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "base/clock.h"

namespace vigil::proxy {

// A client address with its host bits cleared: 4 bytes for IPv4 (an IPv4-mapped IPv6 address
// counts as the IPv4 one, as a dual-stack listener sees IPv4 clients so), 16 for IPv6.
struct StickKey {
  std::array<uint8_t, 16> bytes{};
  uint8_t size = 0;
  std::string_view view() const { return {reinterpret_cast<const char*>(bytes.data()), size}; }
  bool operator==(const StickKey&) const = default;
};

// `ip` is raw address bytes (4 or 16); prefixes are how many leading bits count per family.
StickKey stick_key(std::string_view ip, int v4_prefix, int v6_prefix);

class StickTable {
 public:
  // At least `capacity` entries (rounded up to whole groups); `timeout` counts in whole seconds
  // from `epoch`, the table's creation.
  StickTable(size_t capacity, Duration timeout, TimePoint epoch, uint64_t seed = 0);

  // The member stored for `key` unless it expired; a hit counts as a use and restarts its
  // timeout, as HAProxy refreshes an entry its `stick on` matches.
  std::optional<uint32_t> find(const StickKey& key, TimePoint now);
  // Stores (or replaces) `key`'s member. The entry takes the place of an expired one of its
  // group, else of the group's least recently used: LRU within a group of kWays entries, which
  // keeps the work per call constant.
  void put(const StickKey& key, uint32_t member, TimePoint now);

  // Entries not expired at `now`: a scan, for tests and reports, not for the connection path.
  size_t size(TimePoint now) const;
  size_t capacity() const { return groups_ * kWays; }
  // Slots that hold a client, expired ones included until a new client takes their place: the
  // memory in use, for the metrics. One load; any thread.
  size_t used() const { return used_.load(std::memory_order_relaxed); }
  std::chrono::seconds timeout() const { return std::chrono::seconds(timeout_); }

  // Eight 24-byte slots, three cache lines: a group overflows before the table is full only when
  // far more clients than the average fall in it.
  static constexpr size_t kWays = 8;

 private:
  // A slot holds a 64-bit fingerprint of its key (odd; 0 when empty) and its value: the member in
  // the high half, the last use in the low half (seconds since epoch_, plus one). Each slot is a
  // seqlock: a writer claims it by moving `seq` from even to odd with a compare-and-swap (a writer
  // that finds it odd skips the slot), writes, and makes `seq` even again; a reader takes tag and
  // value only when `seq` was even and unchanged across both. Checking the tag twice instead is
  // not enough: two writers in between can hand the slot to another client and back, and the
  // reader would pair its client with the other's member.
  static constexpr uint64_t kEmpty = 0;
  struct Slot {
    std::atomic<uint64_t> seq{0};
    std::atomic<uint64_t> tag{0};
    std::atomic<uint64_t> value{0};
  };

  uint64_t fingerprint(const StickKey& key) const;
  Slot* group(uint64_t tag) { return &slots_[(tag >> 20) % groups_ * kWays]; }
  uint32_t seconds(TimePoint now) const;
  // Another worker may have stored a use a second later than `now`: not expired.
  bool expired(uint32_t used, uint32_t now) const {
    return used == 0 || (now > used && now - used >= timeout_);
  }

  uint32_t timeout_;  // seconds, at least 1
  TimePoint epoch_;
  uint64_t seed_;
  size_t groups_;
  std::unique_ptr<Slot[]> slots_;
  std::atomic<size_t> used_{0};
};

}  // namespace vigil::proxy
