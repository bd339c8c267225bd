#include "proxy/stick_table.h"

#include <algorithm>
#include <cstring>

namespace vigil::proxy {
namespace {

constexpr std::array<uint8_t, 12> kV4Mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

void clear_host_bits(StickKey& k, int prefix) {
  const int bits = k.size * 8;
  for (int bit = std::clamp(prefix, 0, bits); bit < bits; ++bit) {
    k.bytes[bit / 8] &= static_cast<uint8_t>(~(0x80u >> (bit % 8)));
  }
}

uint64_t mix(uint64_t h) {  // splitmix64's finaliser: nearby addresses spread over the groups
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

uint64_t pack(uint32_t member, uint32_t used) { return (uint64_t{member} << 32) | used; }
uint32_t member_of(uint64_t value) { return static_cast<uint32_t>(value >> 32); }
uint32_t used_of(uint64_t value) { return static_cast<uint32_t>(value); }

}  // namespace

StickKey stick_key(std::string_view ip, int v4_prefix, int v6_prefix) {
  StickKey k;
  if (ip.size() == 16 && std::memcmp(ip.data(), kV4Mapped.data(), kV4Mapped.size()) == 0) {
    ip.remove_prefix(12);
  }
  k.size = static_cast<uint8_t>(std::min(ip.size(), k.bytes.size()));
  std::memcpy(k.bytes.data(), ip.data(), k.size);
  clear_host_bits(k, k.size == 4 ? v4_prefix : v6_prefix);
  return k;
}

StickTable::StickTable(size_t capacity, Duration timeout, TimePoint epoch, uint64_t seed)
    : timeout_(static_cast<uint32_t>(std::clamp<int64_t>(
          std::chrono::ceil<std::chrono::seconds>(timeout).count(), 1, UINT32_MAX / 2))),
      epoch_(epoch),
      seed_(seed),
      groups_(std::max<size_t>(1, (capacity + kWays - 1) / kWays)),
      slots_(std::make_unique<Slot[]>(groups_ * kWays)) {}

uint64_t StickTable::fingerprint(const StickKey& key) const {
  uint64_t h = seed_ ^ key.size;
  for (size_t i = 0; i < key.size; i += 8) {
    uint64_t word = 0;
    std::memcpy(&word, key.bytes.data() + i, std::min<size_t>(8, key.size - i));
    h = mix(h ^ word);
  }
  return h | 1;  // never kEmpty
}

uint32_t StickTable::seconds(TimePoint now) const {
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(now - epoch_).count();
  return static_cast<uint32_t>(std::clamp<int64_t>(s, 0, UINT32_MAX - 1)) + 1;
}

std::optional<uint32_t> StickTable::find(const StickKey& key, TimePoint now) {
  const uint64_t tag = fingerprint(key);
  const uint32_t at = seconds(now);
  Slot* g = group(tag);
  for (size_t w = 0; w < kWays; ++w) {
    const uint64_t seq = g[w].seq.load(std::memory_order_acquire);
    if (seq % 2 != 0 || g[w].tag.load(std::memory_order_relaxed) != tag) continue;
    uint64_t value = g[w].value.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (g[w].seq.load(std::memory_order_relaxed) != seq) return std::nullopt;  // being replaced
    if (expired(used_of(value), at)) return std::nullopt;
    // At most one write a second per client; a failed exchange means another worker wrote it.
    // Outside the seqlock on purpose: should the slot change hands meanwhile to a client with the
    // same value, the exchange only refreshes that client's use of the same member. On a copy: a
    // failed exchange loads the slot's current value, which may be another client's by then.
    if (uint64_t expected = value; used_of(value) != at) {
      g[w].value.compare_exchange_strong(expected, pack(member_of(value), at),
                                         std::memory_order_relaxed);
    }
    return member_of(value);
  }
  return std::nullopt;
}

void StickTable::put(const StickKey& key, uint32_t member, TimePoint now) {
  const uint64_t tag = fingerprint(key);
  const uint32_t at = seconds(now);
  Slot* g = group(tag);
  // The choice reads without the seqlock: a slot that changes meanwhile is only a worse victim.
  size_t victim = 0;
  uint32_t oldest = UINT32_MAX;
  for (size_t w = 0; w < kWays; ++w) {
    if (g[w].tag.load(std::memory_order_relaxed) == tag) {
      victim = w;  // the same client's
      break;
    }
    const uint32_t used = used_of(g[w].value.load(std::memory_order_relaxed));
    const uint32_t age = expired(used, at) ? 0 : used;  // empty or expired first
    if (age < oldest) {
      oldest = age;
      victim = w;
    }
  }
  Slot& s = g[victim];
  // Claim the slot; another worker writing it now wins, and this client is stored on its next
  // connection.
  uint64_t seq = s.seq.load(std::memory_order_relaxed);
  if (seq % 2 != 0 || !s.seq.compare_exchange_strong(seq, seq + 1, std::memory_order_relaxed)) {
    return;
  }
  std::atomic_thread_fence(std::memory_order_release);  // the odd seq before the new contents
  const uint64_t previous = s.tag.load(std::memory_order_relaxed);
  s.tag.store(tag, std::memory_order_relaxed);
  s.value.store(pack(member, at), std::memory_order_relaxed);
  s.seq.store(seq + 2, std::memory_order_release);
  if (previous == kEmpty) used_.fetch_add(1, std::memory_order_relaxed);  // once per slot, ever
}

size_t StickTable::size(TimePoint now) const {
  const uint32_t at = seconds(now);
  size_t n = 0;
  for (size_t i = 0; i < groups_ * kWays; ++i) {
    if (slots_[i].tag.load(std::memory_order_relaxed) != kEmpty &&
        !expired(used_of(slots_[i].value.load(std::memory_order_relaxed)), at)) {
      ++n;
    }
  }
  return n;
}

}  // namespace vigil::proxy
