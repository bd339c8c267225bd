// The query of a scrape: scopes, names, no-maint and the histograms, and the 400s.
#include "admin/metrics_query.h"

#include <gtest/gtest.h>

namespace vigil::admin {
namespace {

MetricsQuery parsed(const Target::Query& q, bool histograms = false) {
  auto out = parse_metrics_query(q, {.member_histograms = histograms});
  EXPECT_TRUE(out.has_value()) << out.error();
  return out.value_or(MetricsQuery{});
}

TEST(MetricsQuery, WithoutParametersEverythingButTheHistogramsTheConfigLeavesOut) {
  const MetricsQuery q = parsed({});
  for (auto scope : {MetricsScope::kProcess, MetricsScope::kListener, MetricsScope::kPool,
                     MetricsScope::kMember}) {
    EXPECT_TRUE(q.wants(scope, "vigil_x"));
  }
  EXPECT_FALSE(q.wants(MetricsScope::kMember, kMemberHistogram));
  EXPECT_TRUE(parsed({}, true).wants(MetricsScope::kMember, kMemberHistogram));
  EXPECT_TRUE(parsed({{"histograms", "member"}}).wants(MetricsScope::kMember, kMemberHistogram));
}

TEST(MetricsQuery, ScopesAddUp) {
  const MetricsQuery q = parsed({{"scope", "process"}, {"scope", "pool"}});
  EXPECT_TRUE(q.wants(MetricsScope::kProcess, "process_open_fds"));
  EXPECT_TRUE(q.wants(MetricsScope::kPool, "vigil_pool_status"));
  EXPECT_FALSE(q.wants(MetricsScope::kListener, "vigil_listener_status"));
  EXPECT_FALSE(q.wants(MetricsScope::kMember, "vigil_member_up"));
}

// admin.metrics.scopes: what a scrape without scope= gets; scope= replaces it.
TEST(MetricsQuery, TheConfigsScopesAreTheDefault) {
  const model::AdminMetrics config{.scopes = {MetricsScope::kProcess, MetricsScope::kPool},
                                   .auto_scopes = false};
  const auto q = parse_metrics_query({}, config);
  ASSERT_TRUE(q.has_value());
  EXPECT_TRUE(q->wants(MetricsScope::kPool, "vigil_pool_status"));
  EXPECT_FALSE(q->wants(MetricsScope::kMember, "vigil_member_up"));
  const auto asked = parse_metrics_query({{"scope", "member"}}, config);
  ASSERT_TRUE(asked.has_value());
  EXPECT_TRUE(asked->wants(MetricsScope::kMember, "vigil_member_up"));
  EXPECT_FALSE(asked->wants(MetricsScope::kPool, "vigil_pool_status"));
}

constexpr std::array<bool, 4> kEveryScope{true, true, true, true};
constexpr size_t kFleet = 30'000;  // members of 10,000 load balancers of three

// admin.metrics.scopes: auto (the default): every scope up to the limit, process and pool above
// it, decided by the members the render holds.
TEST(MetricsQuery, AutoScopesAreEveryScopeUpToTheLimit) {
  const MetricsQuery q = parsed({});
  ASSERT_TRUE(q.auto_scopes) << "to be resolved at the render";
  const MetricsQuery small = resolve_scopes(q, kAutoScopesMemberLimit);
  EXPECT_EQ(small.scopes, kEveryScope);
  EXPECT_FALSE(small.auto_scopes);
  EXPECT_FALSE(small.members_left_out);
  const MetricsQuery large = resolve_scopes(q, kAutoScopesMemberLimit + 1);
  EXPECT_TRUE(large.wants(MetricsScope::kProcess, "process_open_fds"));
  EXPECT_TRUE(large.wants(MetricsScope::kPool, "vigil_pool_status"));
  EXPECT_FALSE(large.wants(MetricsScope::kMember, "vigil_member_up"));
  EXPECT_FALSE(large.wants(MetricsScope::kListener, "vigil_listener_connections_total"));
  EXPECT_FALSE(large.auto_scopes);
  EXPECT_TRUE(large.members_left_out);
  EXPECT_EQ(resolve_scopes(large, kFleet), large) << "resolved once";
}

// scope= in the scrape, or a list in the config, is a choice: never widened or narrowed, and
// what it leaves out is not reported as left out.
TEST(MetricsQuery, ChosenScopesStayAsTheyAre) {
  const MetricsQuery asked = parsed({{"scope", "member"}, {"scope", "listener"}});
  EXPECT_FALSE(asked.auto_scopes);
  EXPECT_EQ(resolve_scopes(asked, kFleet), asked);
  const MetricsQuery pools = parsed({{"scope", "process"}, {"scope", "pool"}});
  EXPECT_FALSE(resolve_scopes(pools, kFleet).members_left_out);
  const model::AdminMetrics every{.auto_scopes = false};
  const auto listed = parse_metrics_query({}, every);
  ASSERT_TRUE(listed.has_value());
  EXPECT_EQ(resolve_scopes(*listed, kFleet).scopes, kEveryScope) << "all four, at any size";
  const model::AdminMetrics two{.scopes = {MetricsScope::kProcess, MetricsScope::kPool},
                                .auto_scopes = false};
  const auto narrow = parse_metrics_query({}, two);
  ASSERT_TRUE(narrow.has_value());
  EXPECT_EQ(resolve_scopes(*narrow, 3), *narrow) << "a small vigil gets its list too";
  EXPECT_FALSE(resolve_scopes(*narrow, kFleet).members_left_out);
}

// Naming a family is asking for it: `?name[]=vigil_member_up` without scope= gets it at any size
// (the names bound the scrape). `histograms=member` says what the member scope holds, as
// admin.metrics.member_histograms does, not which scopes are served.
TEST(MetricsQuery, AutoServesTheFamiliesNamedButHistogramsAskNoScope) {
  const MetricsQuery named = resolve_scopes(parsed({{"name[]", "vigil_member_up"}}), kFleet);
  EXPECT_TRUE(named.wants(MetricsScope::kMember, "vigil_member_up"));
  EXPECT_FALSE(named.members_left_out);
  const MetricsQuery histograms = resolve_scopes(parsed({{"histograms", "member"}}), kFleet);
  EXPECT_FALSE(histograms.wants(MetricsScope::kMember, kMemberHistogram));
  EXPECT_TRUE(histograms.members_left_out);
  const MetricsQuery both =
      resolve_scopes(parsed({{"scope", "member"}, {"histograms", "member"}}), kFleet);
  EXPECT_TRUE(both.wants(MetricsScope::kMember, kMemberHistogram));
}

TEST(MetricsQuery, NamesPickFamiliesAndANamedHistogramIsServed) {
  const MetricsQuery q =
      parsed({{"name[]", "vigil_member_up"}, {"name[]", std::string(kMemberHistogram)}});
  EXPECT_TRUE(q.wants(MetricsScope::kMember, "vigil_member_up"));
  EXPECT_TRUE(q.wants(MetricsScope::kMember, kMemberHistogram));
  EXPECT_FALSE(q.wants(MetricsScope::kMember, "vigil_member_status"));
  EXPECT_FALSE(q.wants(MetricsScope::kProcess, "process_open_fds"));
  // A name outside the scopes asked for is not served.
  const MetricsQuery both = parsed({{"scope", "pool"}, {"name[]", "vigil_member_up"}});
  EXPECT_FALSE(both.wants(MetricsScope::kMember, "vigil_member_up"));
}

TEST(MetricsQuery, NoMaintIsAFlag) {
  EXPECT_TRUE(parsed({{"no-maint", ""}}).no_maint);
  EXPECT_FALSE(parsed({}).no_maint);
}

TEST(MetricsQuery, WhatItDoesNotKnowIsAnErrorNamingWhatItTakes) {
  const struct {
    const char* description;
    Target::Query query;
    std::string error;
  } kCases[] = {
      {.description = "an unknown scope",
       .query = {{"scope", "server"}},
       .error = "unknown scope \"server\"; use process, listener, pool or member (repeat scope= "
                "for more)"},
      {.description = "an empty scope",
       .query = {{"scope", ""}},
       .error = "unknown scope \"\"; use process, listener, pool or member (repeat scope= for "
                "more)"},
      {.description = "a name that is no metric name",
       .query = {{"name[]", "vigil member"}},
       .error = "name[]=\"vigil member\" is no metric family name (like vigil_member_up)"},
      {.description = "an unknown histograms value",
       .query = {{"histograms", "all"}},
       .error = "unknown histograms=\"all\"; use histograms=member"},
      {.description = "an unknown parameter",
       .query = {{"scopes", "pool"}},
       .error = "unknown parameter \"scopes\"; /metrics takes scope=, name[]=, no-maint and "
                "histograms=member"},
  };
  for (const auto& c : kCases) {
    const auto q = parse_metrics_query(c.query, {});
    ASSERT_FALSE(q.has_value()) << c.description;
    EXPECT_EQ(q.error(), c.error) << c.description;
  }
}

}  // namespace
}  // namespace vigil::admin
