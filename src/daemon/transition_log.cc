#include "daemon/transition_log.h"

#include <fmt/format.h>

#include "base/duration.h"

namespace vigil::daemon {

std::string transition_line(const TransitionFacts& f) {
  using model::OperatingStatus;
  std::string verb;
  switch (f.after) {
    case OperatingStatus::kOnline:
      verb = "UP";
      break;
    case OperatingStatus::kError:
      verb = "DOWN";
      break;
    default:
      verb = std::string(model::to_string(f.after));
      break;
  }
  std::string line = fmt::format("pool {} member {} {} {}", f.pool, f.member, f.address, verb);
  if (!f.admin.empty()) {
    line += ": " + f.admin;
  } else if (f.check) {
    line += ": " + model::describe(*f.check);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(f.check->duration);
    if (f.first_check) {
      line += fmt::format(" (first check, {}ms)", ms.count());
    } else if (f.after == OperatingStatus::kError && f.unhealthy_threshold > 0) {
      line += fmt::format(" ({}/{} failures, check {}ms)", f.failures, f.unhealthy_threshold,
                          ms.count());
    } else if (f.after == OperatingStatus::kOnline && f.healthy_threshold > 0) {
      line += fmt::format(" ({}/{} successes, check {}ms)", f.successes, f.healthy_threshold,
                          ms.count());
    } else {
      line += fmt::format(" (check {}ms)", ms.count());
    }
  }
  line += fmt::format(" (was {}); {} of {} members up", model::to_string(f.before), f.members_up,
                      f.members_total);
  return line;
}

}  // namespace vigil::daemon
