#include "daemon/member_health.h"

#include <algorithm>

namespace vigil::daemon {

bool answered(const std::optional<model::CheckResult>& check) {
  return check &&
         (check->outcome == model::Outcome::kOk || check->outcome == model::Outcome::kBadStatus);
}

CheckEffects record_check(MemberRuntime& m, const health::Event& e, TimePoint now,
                          model::WallTime wall, bool shutdown_sessions_on_down) {
  CheckEffects effects;
  // Not the member's result at all (we were out of descriptors): counted, nothing else. Its
  // last check, thresholds and passive state stay what they were.
  if (e.result.local()) {
    ++m.checks.local_failures;
    return effects;
  }
  m.checks.record(e.result.duration, e.result.ok());
  m.history.record_check(wall, e.result.duration, e.result.ok());
  m.last_check = e.result;
  m.last_check_at = wall;
  if (e.previous == model::Health::kDown && e.health == model::Health::kUp) m.recovered_at = now;
  m.health = e.health;
  m.first_check = e.previous == model::Health::kUnchecked;
  m.successes = e.successes;
  m.failures = e.failures;
  // Only a new connection can show that the member accepts connections again: a check on a kept
  // one, even one already in flight when the connect failed, cannot.
  if (m.passive_out && e.result.ok() && !e.result.reused_connection) {
    m.passive_out = false;
    effects.passive_out_changed = true;
  }
  const bool no_answer = !answered(m.last_check) && e.result.outcome != model::Outcome::kRefused;
  if (no_answer) m.unanswered_check_at = now;
  if (m.silent_suspect) {
    // Two signals agree: a connect and then a check both got no answer. Closing its sessions now
    // lets watches reconnect before the thresholds mark it down. A refusal is an answer: the
    // host is up and will reset its sessions' packets itself.
    m.silent_suspect = false;
    effects.close_sessions = shutdown_sessions_on_down && no_answer;
  }
  return effects;
}

bool record_connect_failure(MemberRuntime& m, bool has_monitor, bool silent) {
  if (!has_monitor || m.passive_out) return false;
  m.passive_out = true;
  if (silent) m.silent_suspect = true;
  return true;
}

bool silence_confirmed(MemberRuntime& m, TimePoint now, Duration waited,
                       bool shutdown_sessions_on_down) {
  if (!m.silent_suspect || m.unanswered_check_at == TimePoint{} ||
      m.unanswered_check_at < now - waited) {
    return false;
  }
  m.silent_suspect = false;  // decided: the check started now confirms nothing more
  return shutdown_sessions_on_down;
}

bool check_suspect(const MemberRuntime& m, bool has_monitor) {
  return has_monitor && !m.passive_out;
}

Duration confirm_window(Duration limit, Duration waited, Duration timeout) {
  return std::min(std::max(limit - waited, limit / 2), timeout);
}

bool record_silence(MemberRuntime& m, TimePoint now, bool shutdown_sessions_on_down) {
  m.unanswered_check_at = now;
  if (!m.silent_suspect) return false;
  m.silent_suspect = false;  // decided: the check's own timeout confirms nothing more
  return shutdown_sessions_on_down;
}

}  // namespace vigil::daemon
