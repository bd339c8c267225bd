// The members' health state an upgrade hands to the new process, so that it does not check
// every member from scratch: a member down stays down (no traffic) until its checks pass the
// thresholds, one going down keeps its failures counted. Plain values and (de)serialisation
// (JSON in a memfd the new process inherits); the control thread calls them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/error.h"
#include "model/admin_override.h"
#include "model/check_result.h"
#include "model/config.h"
#include "model/status.h"
#include "net/fd.h"

namespace vigil::daemon {

struct CarriedHealth {
  std::string member_id;
  // What was checked ("HTTPS 10.0.0.11:6443 /readyz"): a member whose check the new
  // configuration changed starts over, as a reload would have it.
  std::string checked;
  model::Health health = model::Health::kUnchecked;
  int successes = 0;  // consecutive
  int failures = 0;
  model::WallTime state_since{};
  model::WallTime health_since{};  // MemberRuntime::health_since
  model::WallTime last_check_at{};
  std::optional<model::CheckResult> last_check;
};

// The `checked` of a member of a pool with `monitor`.
std::string checked_target(const model::HealthMonitor& monitor, const model::Member& member);

std::string encode_health(const std::vector<CarriedHealth>& members);
// An entry that does not parse fails the whole: a new binary that cannot read the old one's
// state checks from scratch (logged) rather than trusting half of it.
Result<std::vector<CarriedHealth>> decode_health(std::string_view text);

// A memfd holding `text`, to hand to the new process; and reading one back there.
Result<net::Fd> health_memfd(std::string_view text);
Result<std::string> read_memfd(int fd);

// In the new process: what the old one handed over in `fd` (none: nothing, not an upgrade); an
// empty list, logged, when it cannot be read (upgrade_health.cc).
std::vector<CarriedHealth> handed_over_health(std::optional<net::Fd> fd);

}  // namespace vigil::daemon
