#include "daemon/transition_log.h"

#include <fmt/format.h>

#include "base/duration.h"

namespace vigil::daemon {

namespace {

std::string_view verb_of(model::OperatingStatus s) {
  switch (s) {
    case model::OperatingStatus::kOnline:
      return "UP";
    case model::OperatingStatus::kError:
      return "DOWN";
    default:
      return model::to_string(s);
  }
}

// ": HTTP 500 \"[-]etcd failed\" (3/3 failures, check 12ms)": the result that decided.
std::string check_text(const TransitionFacts& f) {
  using model::OperatingStatus;
  if (!f.check) return {};
  std::string text = ": " + model::describe(*f.check);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(f.check->duration);
  if (f.first_check) {
    text += fmt::format(" (first check, {}ms)", ms.count());
  } else if (f.after == OperatingStatus::kError && f.unhealthy_threshold > 0) {
    text +=
        fmt::format(" ({}/{} failures, check {}ms)", f.failures, f.unhealthy_threshold, ms.count());
  } else if (f.after == OperatingStatus::kOnline && f.healthy_threshold > 0) {
    text +=
        fmt::format(" ({}/{} successes, check {}ms)", f.successes, f.healthy_threshold, ms.count());
  } else {
    text += fmt::format(" (check {}ms)", ms.count());
  }
  return text;
}

}  // namespace

std::string disruption_text(const model::DisruptionCounts& c) {
  return fmt::format("{} sessions closed, {} retried, {} hedged, {} replayed, {} failed",
                     c.sessions_closed, c.retries, c.hedges, c.replays, c.failed_sessions);
}

std::string disruption_line(std::string_view pool, std::string_view member,
                            std::string_view address, model::OperatingStatus status,
                            const model::DisruptionCounts& c, bool silent) {
  return fmt::format("pool {} member {} {} {}, its sessions closed: {}", pool, member, address,
                     silent ? "SILENT" : verb_of(status), disruption_text(c));
}

std::string transition_line(const TransitionFacts& f) {
  std::string line =
      fmt::format("pool {} member {} {} {}", f.pool, f.member, f.address, verb_of(f.after));
  line += f.admin.empty() ? check_text(f) : ": " + f.admin;
  line += fmt::format(" (was {}); {} of {} members up", model::to_string(f.before), f.members_up,
                      f.members_total);
  if (f.closing) {
    line += "; closing its sessions";
  } else if (f.disruption) {
    line += "; " + disruption_text(*f.disruption);
  }
  return line;
}

std::string health_line(const TransitionFacts& f, std::string_view hidden_by) {
  return fmt::format("pool {} member {} {} health {}{}; stays {} ({})", f.pool, f.member, f.address,
                     verb_of(f.after), check_text(f), model::to_string(f.before), hidden_by);
}

}  // namespace vigil::daemon
