#include "health/scheduler.h"

#include <algorithm>

namespace vigil::health {

namespace {
// A zero or negative interval (config/ rejects them) would otherwise spin the control thread.
constexpr Duration kMinPeriod = std::chrono::milliseconds(1);
}  // namespace

Scheduler::Scheduler(const Clock& clock, uint64_t seed) : clock_(clock), rng_(seed) {}

void Scheduler::add(const std::string& id, const Timing& timing) {
  members_.insert_or_assign(id, Member{.timing = timing, .next_start = clock_.now()});
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
    m.next_start = std::min(m.next_start, *m.last_start + jittered(m));
  }
}

void Scheduler::check_now(std::string_view id) {
  auto it = members_.find(id);
  if (it == members_.end() || it->second.running) return;
  it->second.next_start = std::min(it->second.next_start, clock_.now());
}

bool Scheduler::running(std::string_view id) const {
  auto it = members_.find(id);
  return it != members_.end() && it->second.running;
}

std::optional<TimePoint> Scheduler::next_wakeup() const {
  std::optional<TimePoint> earliest;
  for (const auto& [id, m] : members_) {
    std::optional<TimePoint> t;
    if (!m.running) {
      t = m.next_start;
    } else if (!m.timeout_reported) {
      t = *m.last_start + m.timing.timeout;
    }
    if (t && (!earliest || *t < *earliest)) earliest = t;
  }
  return earliest;
}

Scheduler::Due Scheduler::take_due(TimePoint now) {
  Due due;
  for (auto& [id, m] : members_) {
    if (m.running) {
      if (!m.timeout_reported && now >= *m.last_start + m.timing.timeout) {
        m.timeout_reported = true;
        due.timed_out.push_back(id);
      }
    } else if (now >= m.next_start) {
      m.running = true;
      m.timeout_reported = false;
      m.last_start = now;
      due.start.push_back(id);
    }
  }
  return due;
}

void Scheduler::completed(std::string_view id, TimePoint now, bool transitioning) {
  auto it = members_.find(id);
  if (it == members_.end() || !it->second.running) return;
  Member& m = it->second;
  m.running = false;
  m.timeout_reported = false;
  m.fast = transitioning;
  m.next_start = std::max(*m.last_start + jittered(m), now);
}

Duration Scheduler::jittered(const Member& m) {
  const Duration base = std::max(m.fast ? m.timing.fast_interval : m.timing.interval, kMinPeriod);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  return Duration(static_cast<Duration::rep>(static_cast<double>(base.count()) * (1.0 + u(rng_))));
}

}  // namespace vigil::health
