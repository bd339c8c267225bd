#include "health/scheduler.h"

#include <algorithm>

namespace vigil::health {

namespace {
// A zero or negative interval (config/ rejects them) would otherwise spin the control thread.
constexpr Duration kMinPeriod = std::chrono::milliseconds(1);
}  // namespace

Scheduler::Scheduler(const Clock& clock, uint64_t seed) : clock_(clock), rng_(seed) {}

void Scheduler::plan_start(const std::string& id, Member& m, TimePoint at) {
  m.next_start = at;
  m.start_seq = ++seq_;
  queue_.push({.at = at, .seq = m.start_seq, .timeout = false, .id = id});
}

bool Scheduler::current(const Entry& e) const {
  auto it = members_.find(e.id);
  if (it == members_.end()) return false;
  const Member& m = it->second;
  if (e.timeout) return m.running && !m.timeout_reported && m.timeout_seq == e.seq;
  return !m.running && m.start_seq == e.seq;
}

void Scheduler::add(const std::string& id, const Timing& timing) {
  auto [it, inserted] = members_.insert_or_assign(id, Member{.timing = timing});
  // Due now, unless the member added before it is due less than a spacing ago (or later).
  TimePoint at = clock_.now();
  if (last_first_check_) at = std::max(at, *last_first_check_ + kFirstCheckSpacing);
  last_first_check_ = at;
  plan_start(it->first, it->second, at);
}

void Scheduler::remove(std::string_view id) {
  if (auto it = members_.find(id); it != members_.end()) members_.erase(it);
}

void Scheduler::update(std::string_view id, const Timing& timing) {
  auto it = members_.find(id);
  if (it == members_.end()) return;
  Member& m = it->second;
  m.timing = timing;
  if (!m.running && m.last_start) {
    const TimePoint sooner = *m.last_start + jittered(m);
    if (sooner < m.next_start) plan_start(it->first, m, sooner);
  }
}

void Scheduler::check_now(std::string_view id) {
  auto it = members_.find(id);
  if (it == members_.end() || it->second.running) return;
  const TimePoint now = clock_.now();
  if (now < it->second.next_start) plan_start(it->first, it->second, now);
}

bool Scheduler::running(std::string_view id) const {
  auto it = members_.find(id);
  return it != members_.end() && it->second.running;
}

std::optional<TimePoint> Scheduler::next_wakeup() {
  while (!queue_.empty() && !current(queue_.top())) queue_.pop();
  if (queue_.empty()) return std::nullopt;
  return queue_.top().at;
}

Scheduler::Due Scheduler::take_due(TimePoint now) {
  Due due;
  while (!queue_.empty() && queue_.top().at <= now) {
    Entry e = queue_.top();
    queue_.pop();
    if (!current(e)) continue;
    Member& m = members_.find(e.id)->second;
    if (e.timeout) {
      m.timeout_reported = true;
      due.timed_out.push_back(std::move(e.id));
    } else {
      m.running = true;
      m.timeout_reported = false;
      m.last_start = now;
      m.timeout_seq = ++seq_;
      queue_.push({.at = now + m.timing.timeout, .seq = m.timeout_seq, .timeout = true, .id = e.id});
      due.start.push_back(std::move(e.id));
    }
  }
  std::ranges::sort(due.start);
  std::ranges::sort(due.timed_out);
  return due;
}

void Scheduler::completed(std::string_view id, TimePoint now, bool transitioning) {
  auto it = members_.find(id);
  if (it == members_.end() || !it->second.running) return;
  Member& m = it->second;
  m.running = false;
  m.timeout_reported = false;
  m.timeout_seq = 0;
  m.fast = transitioning;
  plan_start(it->first, m, std::max(*m.last_start + jittered(m), now));
}

Duration Scheduler::jittered(const Member& m) {
  const Duration base = std::max(m.fast ? m.timing.fast_interval : m.timing.interval, kMinPeriod);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  return Duration(static_cast<Duration::rep>(static_cast<double>(base.count()) * (1.0 + u(rng_))));
}

}  // namespace vigil::health
