// The one log line written when a member changes state, e.g.
//   pool masters member master-01 10.0.0.11:6443 DOWN: HTTP 500 "[-]etcd failed" (3/3 failures,
//   check 12ms); 2 of 3 members up
// Pure formatting, any thread.
#pragma once

#include <optional>
#include <string>

#include "model/check_result.h"
#include "model/disruption.h"
#include "model/status.h"

namespace vigil::daemon {

struct TransitionFacts {
  std::string pool;
  std::string member;
  std::string address;
  model::OperatingStatus before;
  model::OperatingStatus after;
  std::optional<model::CheckResult> check;
  bool first_check = false;  // the member's first result: it alone decided
  int successes = 0;
  int failures = 0;
  int healthy_threshold = 0;
  int unhealthy_threshold = 0;
  size_t members_up = 0;
  size_t members_total = 0;
  std::string admin;  // an operator's override caused it: "admin drain, set by CLI"; says why
  // Out of service: what its clients saw so far, unless `closing` (its sessions are being
  // closed: disruption_line() tells the counts once that is done).
  std::optional<model::DisruptionCounts> disruption;
  bool closing = false;
};

std::string transition_line(const TransitionFacts& f);

// The line when a member's health changes while its status does not show it (it is drained or in
// maintenance, so it stays DRAINING or OFFLINE whatever its checks say), e.g.
//   pool masters member master-01 10.0.0.11:6443 health DOWN: connection refused (3/3 failures,
//   check 0ms); stays DRAINING (admin drain, set by CLI)
// `f.after` is the status the health alone would give (ONLINE or ERROR), `f.before` the one the
// member keeps; `hidden_by` says why it keeps it. f.members_up, f.disruption and f.closing are
// not used: nothing changes for the pool.
std::string health_line(const TransitionFacts& f, std::string_view hidden_by);

// "3 sessions closed, 0 retried, 0 hedged, 2 replayed, 0 failed"
std::string disruption_text(const model::DisruptionCounts& c);

// The line once a member's sessions are closed, e.g.
//   pool masters member master-01 10.0.0.11:6443 DOWN, its sessions closed: 3 sessions closed,
//   0 retried, 0 hedged, 2 replayed, 0 failed
// `silent`: closed because neither a connect nor a check got an answer, before the thresholds
// said anything: the line names that, not the status the member still shows (UP).
std::string disruption_line(std::string_view pool, std::string_view member,
                            std::string_view address, model::OperatingStatus status,
                            const model::DisruptionCounts& c, bool silent = false);

}  // namespace vigil::daemon
