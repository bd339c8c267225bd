#include "health/scheduler.h"

#include <algorithm>

#include "model/config.h"

namespace vigil::health {

namespace {
// A zero or negative interval (config/ rejects them) would otherwise spin the control thread.
constexpr Duration kMinPeriod = std::chrono::milliseconds(1);
}  // namespace

Scheduler::Scheduler(const Clock& clock, uint64_t seed) : clock_(clock), rng_(seed) {}

const Scheduler::Member* Scheduler::find(std::string_view id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &slots_[it->second];
}

void Scheduler::plan_start(uint32_t slot, TimePoint at) {
  Member& m = slots_[slot];
  m.next_start = at;
  m.start_seq = ++seq_;
  queue_.push({.at = at, .seq = m.start_seq, .slot = slot, .timeout = false});
}

void Scheduler::plan_timeout(uint32_t slot, TimePoint at) {
  Member& m = slots_[slot];
  m.timeout_seq = ++seq_;
  std::deque<Entry>& fifo = timeouts_[m.timing.timeout];
  const Entry e{.at = at, .seq = m.timeout_seq, .slot = slot, .timeout = true};
  // In order unless the clock went back (a test's clock may): then sorted in, O(n).
  if (fifo.empty() || !(fifo.back() > e)) {
    fifo.push_back(e);
  } else {
    fifo.insert(std::upper_bound(fifo.begin(), fifo.end(), e,
                                 [](const Entry& a, const Entry& b) { return b > a; }),
                e);
  }
}

Scheduler::Earliest Scheduler::earliest() {
  while (!queue_.empty() && !current(queue_.top())) queue_.pop();
  Earliest best{.entry = queue_.empty() ? nullptr : &queue_.top()};
  for (auto& [timeout, fifo] : timeouts_) {
    while (!fifo.empty() && !current(fifo.front())) fifo.pop_front();
    if (!fifo.empty() && (best.entry == nullptr || *best.entry > fifo.front())) {
      best = {.entry = &fifo.front(), .fifo = &fifo};
    }
  }
  return best;
}

void Scheduler::drop_empty_timeout_queues() {
  // Only when members leave or change: a FIFO empties after nearly every check, and dropping it
  // there would allocate it anew at the next start.
  std::erase_if(timeouts_, [](const auto& entry) { return entry.second.empty(); });
}

bool Scheduler::current(const Entry& e) const {
  const Member& m = slots_[e.slot];
  if (e.timeout) return m.running && !m.timeout_reported && m.timeout_seq == e.seq;
  return !m.running && m.start_seq == e.seq;
}

uint32_t Scheduler::add(const std::string& id, const Timing& timing,
                        std::optional<TimePoint> first) {
  uint32_t slot = 0;
  if (auto it = index_.find(id); it != index_.end()) {
    slot = it->second;  // restarts the member in place
  } else if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
    index_.emplace(id, slot);
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
    index_.emplace(id, slot);
  }
  slots_[slot] = Member{.id = id, .timing = timing};
  if (first) {
    plan_start(slot, std::max(clock_.now(), *first));
    return slot;
  }
  // Due now, unless the member added before it is due less than its spacing ago (or later).
  TimePoint at = clock_.now();
  if (next_first_check_) at = std::max(at, *next_first_check_);
  next_first_check_ = at + timing.first_check_spacing;
  plan_start(slot, at);
  return slot;
}

void Scheduler::remove(std::string_view id) {
  auto it = index_.find(id);
  if (it == index_.end()) return;
  slots_[it->second] = Member{};  // its queue entries no longer match: seq 0 is never issued
  free_slots_.push_back(it->second);
  index_.erase(it);
  drop_empty_timeout_queues();
}

void Scheduler::update(std::string_view id, const Timing& timing) {
  auto it = index_.find(id);
  if (it == index_.end()) return;
  Member& m = slots_[it->second];
  m.timing = timing;
  drop_empty_timeout_queues();
  if (!m.running && m.last_start) {
    const TimePoint sooner = *m.last_start + jittered(m);
    if (sooner < m.next_start) plan_start(it->second, sooner);
  }
}

void Scheduler::check_now(std::string_view id) {
  auto it = index_.find(id);
  if (it == index_.end() || slots_[it->second].running) return;
  const TimePoint now = clock_.now();
  if (now < slots_[it->second].next_start) plan_start(it->second, now);
}

bool Scheduler::running(std::string_view id) const {
  const Member* m = find(id);
  return m != nullptr && m->running;
}

std::optional<TimePoint> Scheduler::next_wakeup() {
  const Entry* e = earliest().entry;
  if (e == nullptr) return std::nullopt;
  return e->at;
}

Scheduler::Due Scheduler::take_due(TimePoint now, size_t max_starts) {
  Due due;
  for (Earliest top = earliest(); top.entry != nullptr && top.entry->at <= now; top = earliest()) {
    const Entry e = *top.entry;
    if (!e.timeout && due.start.size() >= max_starts) break;
    if (top.fifo != nullptr) {
      top.fifo->pop_front();
    } else {
      queue_.pop();
    }
    Member& m = slots_[e.slot];
    if (e.timeout) {
      m.timeout_reported = true;
      due.timed_out.push_back(e.slot);
    } else {
      m.running = true;
      m.timeout_reported = false;
      m.last_start = now;
      plan_timeout(e.slot, now + m.timing.timeout);
      due.start.push_back(e.slot);
    }
  }
  return due;
}

void Scheduler::completed(std::string_view id, TimePoint now, bool transitioning) {
  if (auto it = index_.find(id); it != index_.end()) completed(it->second, now, transitioning);
}

void Scheduler::completed(uint32_t slot, TimePoint now, bool transitioning) {
  if (slot >= slots_.size() || !slots_[slot].running) return;
  Member& m = slots_[slot];
  m.running = false;
  m.timeout_reported = false;
  m.timeout_seq = 0;
  m.fast = transitioning;
  plan_start(slot, std::max(*m.last_start + jittered(m), now));
}

Duration Scheduler::jittered(const Member& m) {
  const Duration base = std::max(m.fast ? m.timing.fast_interval : m.timing.interval, kMinPeriod);
  constexpr double kJitter = model::kCheckJitterPercent / 100.0;
  std::uniform_real_distribution<double> u(-kJitter, kJitter);
  return Duration(static_cast<Duration::rep>(static_cast<double>(base.count()) * (1.0 + u(rng_))));
}

}  // namespace vigil::health
