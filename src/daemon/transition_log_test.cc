#include "daemon/transition_log.h"

#include <gtest/gtest.h>

namespace vigil::daemon {
namespace {

using namespace std::chrono_literals;
using model::OperatingStatus;

TEST(TransitionLine, DownSaysWhyAndWhatIsLeft) {
  const std::string line = transition_line({
      .pool = "masters",
      .member = "master-01",
      .address = "10.0.0.11:6443",
      .before = OperatingStatus::kOnline,
      .after = OperatingStatus::kError,
      .check = model::CheckResult{.outcome = model::Outcome::kBadStatus,
                                  .http_code = 500,
                                  .duration = 12ms,
                                  .failed_checks = {"[-]etcd failed"}},
      .failures = 3,
      .healthy_threshold = 2,
      .unhealthy_threshold = 3,
      .members_up = 2,
      .members_total = 3,
  });
  EXPECT_EQ(line,
            "pool masters member master-01 10.0.0.11:6443 DOWN: HTTP 500 \"[-]etcd failed\" "
            "(3/3 failures, check 12ms) (was ONLINE); 2 of 3 members up");
}

TEST(TransitionLine, UpCountsSuccesses) {
  const std::string line = transition_line({
      .pool = "p",
      .member = "m",
      .address = "[::1]:80",
      .before = OperatingStatus::kError,
      .after = OperatingStatus::kOnline,
      .check = model::CheckResult{.outcome = model::Outcome::kOk, .duration = 3ms},
      .successes = 2,
      .healthy_threshold = 2,
      .unhealthy_threshold = 3,
      .members_up = 1,
      .members_total = 1,
  });
  EXPECT_EQ(
      line,
      "pool p member m [::1]:80 UP: ok (2/2 successes, check 3ms) (was ERROR); 1 of 1 members up");
}

}  // namespace
}  // namespace vigil::daemon

namespace vigil::daemon {
namespace {

TEST(TransitionLine, FirstCheckSaysSo) {
  const std::string line = transition_line({
      .pool = "p",
      .member = "m",
      .address = "127.0.0.1:1",
      .before = model::OperatingStatus::kOffline,
      .after = model::OperatingStatus::kError,
      .check =
          model::CheckResult{.outcome = model::Outcome::kRefused, .detail = "Connection refused"},
      .first_check = true,
      .failures = 1,
      .unhealthy_threshold = 3,
      .members_up = 0,
      .members_total = 1,
  });
  EXPECT_EQ(line,
            "pool p member m 127.0.0.1:1 DOWN: connection refused (first check, 0ms) (was "
            "OFFLINE); 0 of 1 members up");
}

}  // namespace
}  // namespace vigil::daemon

namespace vigil::daemon {
namespace {

TEST(TransitionLine, OutOfServiceTellsWhatItsClientsSawSoFar) {
  TransitionFacts f{
      .pool = "p",
      .member = "m",
      .address = "127.0.0.1:1",
      .before = model::OperatingStatus::kOnline,
      .after = model::OperatingStatus::kDraining,
      .members_up = 1,
      .members_total = 2,
      .admin = "admin drain, set by CLI",
      .disruption = model::DisruptionCounts{.retries = 2, .hedges = 1, .replays = 3},
  };
  EXPECT_EQ(transition_line(f),
            "pool p member m 127.0.0.1:1 DRAINING: admin drain, set by CLI (was ONLINE); 1 of 2 "
            "members up; 0 sessions closed, 2 retried, 1 hedged, 3 replayed, 0 failed");
  f.closing = true;  // the counts come with disruption_line() once the close is done
  EXPECT_EQ(transition_line(f),
            "pool p member m 127.0.0.1:1 DRAINING: admin drain, set by CLI (was ONLINE); 1 of 2 "
            "members up; closing its sessions");
}

TEST(TransitionLine, AHiddenHealthChangeSaysWhatTheMemberKeepsAndWhy) {
  const std::string line =
      health_line({.pool = "masters",
                   .member = "master-01",
                   .address = "10.0.0.11:6443",
                   .before = OperatingStatus::kDraining,
                   .after = OperatingStatus::kError,
                   .check = model::CheckResult{.outcome = model::Outcome::kTimeout, .duration = 2s},
                   .failures = 2,
                   .unhealthy_threshold = 2},
                  "admin drain, set by CLI");
  EXPECT_EQ(line,
            "pool masters member master-01 10.0.0.11:6443 health DOWN: timeout (2/2 failures, "
            "check 2000ms); stays DRAINING (admin drain, set by CLI)");
}

TEST(TransitionLine, TheDisruptionLineFollowsTheClose) {
  EXPECT_EQ(disruption_line("masters", "master-01", "10.0.0.11:6443",
                            model::OperatingStatus::kError, {.sessions_closed = 3, .replays = 2}),
            "pool masters member master-01 10.0.0.11:6443 DOWN, its sessions closed: 3 sessions "
            "closed, 0 retried, 0 hedged, 2 replayed, 0 failed");
  EXPECT_EQ(
      disruption_line("masters", "master-01", "10.0.0.11:6443", model::OperatingStatus::kOnline,
                      {.sessions_closed = 2}, /*silent=*/true),
      "pool masters member master-01 10.0.0.11:6443 SILENT, its sessions closed: 2 sessions "
      "closed, 0 retried, 0 hedged, 0 replayed, 0 failed")
      << "not UP: its checks have not said so yet, and it is out of rotation";
}

}  // namespace
}  // namespace vigil::daemon
