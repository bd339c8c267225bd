// What the control thread knows about each load balancer, listener, pool and member while vigil
// runs: health verdicts, last check, passive failures, counters. Control thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "model/admin_override.h"
#include "model/check_result.h"
#include "model/check_stats.h"
#include "model/config.h"
#include "model/disruption.h"
#include "model/member_history.h"
#include "model/status.h"
#include "model/status_tree.h"
#include "net/address.h"
#include "proxy/snapshot.h"
#include "proxy/stats.h"

namespace vigil::daemon {

// MemberRuntime::check_tag of a member that is not checked.
inline constexpr uint32_t kNoCheckTag = UINT32_MAX;

struct MemberRuntime {
  std::string id;
  model::Member config;
  // An operator's drain, maint or weight; kept across apply() and in admin.state_file.
  std::optional<model::AdminOverride> admin_override;
  std::optional<net::SocketAddress> address;  // none: its name is not resolved (yet)
  std::string resolve_error;                  // "DNS: ..." while `address` is none
  bool resolving = false;                     // a lookup of its name is under way (names.cc)
  model::Health health = model::Health::kUnchecked;
  bool first_check = false;  // the last result was the member's first
  int successes = 0;         // consecutive
  int failures = 0;
  bool passive_out = false;
  bool silent_suspect = false;  // a connect got no answer at all; the next check confirms
  // When its last check without an answer ended (a timeout, not a refusal), steady clock.
  TimePoint unanswered_check_at{};
  bool draining = false;     // up, but its last check answered with a failure
  TimePoint recovered_at{};  // when it last came back from down (slow start), steady clock
  std::optional<model::CheckResult> last_check;
  model::WallTime last_check_at{};
  model::OperatingStatus status = model::OperatingStatus::kOffline;
  model::WallTime state_since{};
  // The status its health alone gives it, whatever an operator's drain or maintenance shows
  // (health_status_of()), and since when: a drained master's reboot is still downtime, and the
  // page's "since" is the age of what its checks say, not of the override.
  model::OperatingStatus health_status = model::OperatingStatus::kOffline;
  model::WallTime health_since{};
  bool in_rotation = false;
  uint32_t check_tag = kNoCheckTag;  // its health::Target::tag, the index in ControlPlane::checked_
  std::shared_ptr<proxy::BackendStats> stats = std::make_shared<proxy::BackendStats>();
  model::CheckStats checks;
  model::MemberHistory history;  // the last hour, for the status page
  // Its last time out of service (daemon/disruption.h), and stats->disruption() when it was last
  // in service (or added): what came after is that time out's.
  std::optional<model::Disruption> disruption;
  model::DisruptionCounts counted_since;
};

struct PoolRuntime {
  std::string id;
  std::string lb_id;
  std::string lb_name;
  uint32_t slot = 0;   // index in the snapshot vector the workers hold; never reused
  model::Pool config;  // members are in `members`, not config.members
  std::vector<MemberRuntime> members;
  model::OperatingStatus status = model::OperatingStatus::kOnline;
  bool fail_open_active = false;
  proxy::PoolSnapshotPtr snapshot;
};

struct ListenerRuntime {
  std::string id;
  std::string lb_id;
  std::string pool_id;
  model::Listener config;
  std::string bound;           // "address:port" actually bound; empty while bind_error says why not
  std::string bind_error;      // its port was taken at start-up; retried (rebind.cc)
  uint64_t bind_failures = 0;  // attempts to bind that failed, since it was configured
  // The workers' listening sockets by worker index (the workers own them; -1: none): what an
  // upgrade hands to the new process.
  std::vector<int> worker_fds;
  std::shared_ptr<proxy::ListenerStats> stats = std::make_shared<proxy::ListenerStats>();
  // The max_connections the workers were last given with these settings; none: the settings
  // changed since (or were never sent), and the next push sends them.
  std::optional<int> pushed_max_connections;
};

struct LoadBalancerRuntime {
  // As given (listeners and pools with their ids filled in); the config file's pools without
  // their members, which are in PoolRuntime::members.
  model::Config config;
  // Where it runs among the others: larger for each made later, kept when an API write changes
  // it, so that lbs_ is in this order and a reader that takes the views a slice at a time
  // (Daemon::views_after) knows where it left off whatever was made or removed meanwhile.
  uint64_t order = 0;
};

}  // namespace vigil::daemon
