#include "daemon/fd_budget.h"

#include <gtest/gtest.h>

namespace vigil::daemon {
namespace {

TEST(FdBudget, KeepsAReserveAndScalesTheListenersIntoTheRest) {
  const FdNeeds needs{.max_connections = 50'000 + 10'000,
                      .listeners = 2,
                      .workers = 2,
                      .checked_members = 3,
                      .kept_connections = 3,
                      .admin_connections = 64};
  const FdBudget b = plan_fds(1024, needs);
  // 64 fixed + 4 listening sockets + 64 admin + 3 for checks and 3 for their kept connections
  // + 8 for the workers' overshoot.
  EXPECT_EQ(b.reserve, 146u);
  EXPECT_EQ(b.sessions, (1024u - 146u) / 2);
  EXPECT_TRUE(b.lowered);
  const int a = b.effective(50'000, needs.max_connections);
  const int c = b.effective(10'000, needs.max_connections);
  EXPECT_EQ(a, 365);  // 439 * 5/6
  EXPECT_EQ(c, 73);
  EXPECT_LE(static_cast<uint64_t>(a + c), b.sessions);
  const auto said = describe_lowering(b, needs);
  ASSERT_TRUE(said);
  EXPECT_NE(said->find("LimitNOFILE="), std::string::npos);
  EXPECT_NE(said->find("open-file limit is 1024"), std::string::npos);
}

// A TCP check holds a socket while it runs, and the checks keep a few idle ones between them.
TEST(FdBudget, ChecksWithoutAKeptConnectionNeedOneDescriptorAMember) {
  const FdNeeds tcp{.listeners = 1, .checked_members = 30'000, .idle_check_sockets = 64};
  FdNeeds http = tcp;
  http.idle_check_sockets = 0;
  http.kept_connections = 30'000;
  EXPECT_EQ(plan_fds(100'000, http).reserve - plan_fds(100'000, tcp).reserve, 30'000u - 64);
  EXPECT_EQ(plan_fds(100'000, tcp).reserve, 64u + 1 + 30'000 + 64 + 2);
}

TEST(FdBudget, LeavesLimitsThatFitAlone) {
  const FdNeeds needs{.max_connections = 1000, .listeners = 1, .workers = 4};
  const FdBudget b = plan_fds(1'048'576, needs);
  EXPECT_FALSE(b.lowered);
  EXPECT_EQ(b.effective(1000, needs.max_connections), 1000);
  EXPECT_FALSE(describe_lowering(b, needs));
  EXPECT_FALSE(plan_fds(0, needs).lowered);  // unlimited
}

// The scale names everything effective() reads beside a listener's own limit: the control plane
// sends the workers only the listeners it changed while the scale holds.
TEST(FdBudget, TheScaleChangesExactlyWhenEffectiveLimitsMay) {
  FdNeeds needs{.max_connections = 1000, .listeners = 1, .workers = 4};
  const FdBudget fits = plan_fds(1'048'576, needs);
  needs.max_connections = 2000;
  needs.checked_members = 10;
  EXPECT_EQ(plan_fds(1'048'576, needs).scale(2000), fits.scale(1000));  // own limits either way

  const FdNeeds tight{.max_connections = 60'000, .listeners = 2, .checked_members = 3};
  FdNeeds more_checks = tight;
  more_checks.checked_members = 5;  // two descriptors fewer: one session fewer
  const FdBudget a = plan_fds(1024, tight);
  const FdBudget b = plan_fds(1024, more_checks);
  ASSERT_TRUE(a.lowered && b.lowered);
  EXPECT_NE(a.scale(60'000), b.scale(60'000));
  EXPECT_NE(a.scale(60'000), a.scale(60'001));
  EXPECT_NE(a.scale(60'000), fits.scale(1000));
  for (int own : {1, 100, 30'000}) {  // the same scale, the same limit
    EXPECT_EQ(a.effective(own, 60'000), plan_fds(1024, tight).effective(own, 60'000));
  }
}

TEST(FdBudget, TheEnvironmentMayOverrideTheReserve) {
  const FdNeeds needs{.max_connections = 1000, .listeners = 1, .reserve = 0};
  const FdBudget b = plan_fds(256, needs);
  EXPECT_EQ(b.reserve, 0u);
  EXPECT_EQ(b.sessions, 128u);
}

TEST(FdBudget, AListenerAlwaysKeepsOneSession) {
  const FdNeeds needs{.max_connections = 100, .listeners = 1, .admin_connections = 64};
  const FdBudget b = plan_fds(100, needs);  // less than the reserve
  EXPECT_EQ(b.sessions, 0u);
  EXPECT_EQ(b.effective(100, needs.max_connections), 1);
}

}  // namespace
}  // namespace vigil::daemon
