// Pools' side of the health handover (health_handover.h): the old process writes
// every checked member's state into a memfd for the new one; the new one gives each member it
// still checks the same way that state, and its checker the thresholds and the time of the next
// check, so that an upgrade neither re-checks from scratch nor routes to a member that is down.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "base/log.h"
#include "base/string_map.h"
#include "daemon/pools.h"

namespace vigil::daemon {

std::vector<CarriedHealth> Pools::health_to_hand_over() const {
  std::vector<CarriedHealth> members;
  for (const auto& [id, pool] : pools_) {
    if (!pool->config.health_monitor) continue;
    for (const MemberRuntime& m : pool->members) {
      if (m.health == model::Health::kUnchecked) continue;
      members.push_back({.member_id = m.id,
                         .checked = checked_target(*pool->config.health_monitor, m.config),
                         .health = m.health,
                         .successes = m.successes,
                         .failures = m.failures,
                         .state_since = m.state_since,
                         .health_since = m.health_since,
                         .last_check_at = m.last_check_at,
                         .last_check = m.last_check});
    }
  }
  return members;
}

std::vector<CarriedHealth> handed_over_health(std::optional<net::Fd> fd) {
  if (!fd) return {};
  const auto text = read_memfd(fd->get());
  auto decoded = text ? decode_health(*text) : std::unexpected(text.error());
  if (!decoded) {
    log::warn("upgrade: {}; checking every member from scratch", decoded.error().message);
    return {};
  }
  StringSet members;  // as Pools::resume() counts them: the last of an id wins
  for (const CarriedHealth& c : *decoded) members.insert(c.member_id);
  log::info("upgrade: took the health state of {} members from pid {}", members.size(),
            ::getppid());
  return std::move(*decoded);
}

void Pools::resume(std::vector<CarriedHealth> carried) {
  for (CarriedHealth& c : carried) carried_[c.member_id] = std::move(c);
}

void Pools::resume_health(MemberRuntime& m, const model::Pool& pool) const {
  if (carried_.empty() || !pool.health_monitor || !m.config.enabled) return;
  const auto it = carried_.find(m.id);
  // Checked differently now (the file changed before the upgrade): the old verdict no longer
  // holds, as after a reload.
  if (it == carried_.end() ||
      it->second.checked != checked_target(*pool.health_monitor, m.config)) {
    return;
  }
  const CarriedHealth& c = it->second;
  m.health = c.health;
  m.successes = c.successes;
  m.failures = c.failures;
  m.state_since = c.state_since;
  m.health_since = c.health_since;
  m.last_check_at = c.last_check_at;
  m.last_check = c.last_check;
}

std::optional<health::Target::Resumed> Pools::resumed_check(const MemberRuntime& m,
                                                            const model::Pool& pool) const {
  if (carried_.empty() || !pool.health_monitor || m.health == model::Health::kUnchecked) {
    return std::nullopt;
  }
  const auto it = carried_.find(m.id);
  if (it == carried_.end() ||
      it->second.checked != checked_target(*pool.health_monitor, m.config)) {
    return std::nullopt;
  }
  const model::HealthMonitor& hm = *pool.health_monitor;
  // As the old process's scheduler would have it: the fast interval while a change is under way.
  const bool changing = (m.health == model::Health::kUp && m.failures > 0) ||
                        (m.health == model::Health::kDown && m.successes > 0);
  const Duration period =
      changing && hm.fast_interval > Duration::zero() ? hm.fast_interval : hm.interval;
  const Duration since = std::chrono::duration_cast<Duration>(wall_.now() - m.last_check_at);
  return health::Target::Resumed{
      .health = m.health,
      .successes = m.successes,
      .failures = m.failures,
      .first_check_in = std::clamp(period - since, Duration::zero(), period)};
}

}  // namespace vigil::daemon
