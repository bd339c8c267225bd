// /metrics by scope and name, without members in maintenance, and a piece at a time.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "admin/metrics.h"
#include "admin/metrics_test_view.h"
#include "admin/sample_view_test.h"

namespace vigil::admin {
namespace {

using testing::kNow;
using testing::sample_view;

// The families declared in `text` (its # TYPE lines).
std::set<std::string> families(const std::string& text) {
  std::set<std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("# TYPE ")) out.insert(line.substr(7, line.find(' ', 7) - 7));
  }
  return out;
}

std::string text_of(const MetricsQuery& query) {
  return metrics_text(std::vector<model::LoadBalancerView>{sample_view()}, kNow, query);
}

TEST(MetricsScope, EachScopeServesItsFamiliesOnly) {
  const struct {
    MetricsScope scope;
    std::string prefix;  // every family served starts with it (process: none of the others)
  } kCases[] = {
      {.scope = MetricsScope::kMember, .prefix = "vigil_member_"},
      {.scope = MetricsScope::kListener, .prefix = "vigil_listener_"},
      {.scope = MetricsScope::kPool, .prefix = "vigil_pool_"},
      {.scope = MetricsScope::kProcess, .prefix = ""},
  };
  const std::set<std::string> all = families(text_of({}));
  std::set<std::string> served;
  for (const auto& c : kCases) {
    MetricsQuery q;
    q.scopes.fill(false);
    q.scopes[static_cast<size_t>(c.scope)] = true;
    const std::set<std::string> some = families(text_of(q));
    EXPECT_FALSE(some.empty()) << c.prefix;
    for (const std::string& f : some) {
      if (c.scope == MetricsScope::kProcess) {
        EXPECT_FALSE(f.starts_with("vigil_member_") || f.starts_with("vigil_listener_") ||
                     f.starts_with("vigil_pool_"))
            << f;
      } else if (f != "vigil_check_local_failures_total" && f != "vigil_lb_status") {
        EXPECT_TRUE(f.starts_with(c.prefix)) << f;
      }
      EXPECT_TRUE(served.insert(f).second) << f << " in two scopes";
    }
  }
  EXPECT_EQ(served, all) << "the four scopes together are everything";
}

TEST(MetricsScope, NamesPickFamiliesAcrossScopes) {
  MetricsQuery q;
  q.names = {"vigil_member_up", "vigil_pool_status", "process_open_fds", "vigil_nothing"};
  EXPECT_EQ(families(text_of(q)),
            (std::set<std::string>{"vigil_member_up", "vigil_pool_status", "process_open_fds"}));
}

TEST(MetricsScope, TheMembersHistogramsOnlyWhenAsked) {
  MetricsQuery q;
  q.member_histograms = false;
  EXPECT_FALSE(families(text_of(q)).contains(std::string(kMemberHistogram)));
  EXPECT_EQ(text_of(q).find("_bucket{"), std::string::npos);
  q.names = {std::string(kMemberHistogram)};
  EXPECT_EQ(families(text_of(q)), std::set<std::string>{std::string(kMemberHistogram)});
}

TEST(MetricsScope, NoMaintLeavesMembersInMaintenanceOut) {
  model::LoadBalancerView lb = sample_view();
  model::MemberView& m = lb.pools.at(0).members.at(0);
  m.admin_override = model::AdminOverride{.state = model::AdminState::kMaint};
  const std::string id = "member_id=\"" + m.id + "\"";
  const std::vector<model::LoadBalancerView> lbs{lb};
  EXPECT_NE(metrics_text(lbs, kNow, {}).find(id), std::string::npos);
  const std::string without = metrics_text(lbs, kNow, {.no_maint = true});
  EXPECT_EQ(without.find(id), std::string::npos);
  EXPECT_NE(without.find("vigil_member_up{"), std::string::npos) << "the others stay";
}

// `auto` scopes are resolved by the members the render holds, and the gauge says when they were
// left out.
TEST(MetricsScope, AutoLeavesMembersOutAboveTheLimitAndSaysSo) {
  const MetricsQuery automatic{.auto_scopes = true};
  const std::string small = metrics_text(
      {testing::large_view(static_cast<int>(kAutoScopesMemberLimit))}, kNow, automatic);
  EXPECT_TRUE(families(small).contains("vigil_member_up"));
  EXPECT_TRUE(families(small).contains("vigil_listener_connections_total"));
  EXPECT_NE(small.find("\nvigil_metrics_members_left_out 0\n"), std::string::npos);
  const std::vector<model::LoadBalancerView> big{
      testing::large_view(static_cast<int>(kAutoScopesMemberLimit) + 1)};
  const std::string large = metrics_text(big, kNow, automatic);
  EXPECT_FALSE(families(large).contains("vigil_member_up"));
  EXPECT_FALSE(families(large).contains("vigil_listener_connections_total"));
  EXPECT_EQ(large.find("vigil_member_"), std::string::npos);
  EXPECT_TRUE(families(large).contains("vigil_pool_status"));
  EXPECT_NE(large.find("\nvigil_metrics_members_left_out 1\n"), std::string::npos);
  // Chosen scopes at the same size: every family, or pools by choice, and nothing left out.
  const std::string every = metrics_text(big, kNow, {});
  EXPECT_TRUE(families(every).contains("vigil_member_up"));
  EXPECT_NE(every.find("\nvigil_metrics_members_left_out 0\n"), std::string::npos);
  MetricsQuery pools;
  pools.scopes = {true, false, true, false};
  const std::string chosen = metrics_text(big, kNow, pools);
  EXPECT_FALSE(families(chosen).contains("vigil_member_up"));
  EXPECT_NE(chosen.find("\nvigil_metrics_members_left_out 0\n"), std::string::npos);
}

// Members of every pool of every load balancer count, not of one.
TEST(MetricsScope, AutoCountsTheMembersOfTheWholeFleet) {
  const MetricsQuery automatic{.auto_scopes = true};
  const int half = static_cast<int>(kAutoScopesMemberLimit) / 2;
  const std::string at_limit =
      metrics_text({testing::large_view(half), testing::large_view(half)}, kNow, automatic);
  EXPECT_TRUE(families(at_limit).contains("vigil_member_up"));
  const std::string over =
      metrics_text({testing::large_view(half), testing::large_view(half + 1)}, kNow, automatic);
  EXPECT_FALSE(families(over).contains("vigil_member_up"));
}

// The pieces of a render are bounded and make up the whole text; a family's header comes once.
TEST(MetricsScope, PiecesAreBoundedAndMakeTheWhole) {
  const std::vector<model::LoadBalancerView> big{testing::large_view(3000)};
  const std::string whole = metrics_text(big, kNow);
  MetricsRender render(big, kNow, {});
  std::string joined;
  size_t pieces = 0;
  for (std::string piece = render.next(16384); !piece.empty(); piece = render.next(16384)) {
    EXPECT_LE(piece.size(), 16384u + 4096u) << "a piece ends after the object that filled it";
    EXPECT_TRUE(piece.ends_with('\n'));
    joined += piece;
    ++pieces;
  }
  EXPECT_EQ(joined, whole);
  EXPECT_GT(pieces, 100u);
  EXPECT_TRUE(render.next().empty()) << "spent";
}

}  // namespace
}  // namespace vigil::admin
