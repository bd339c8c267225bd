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
  const model::AdminMetrics config{.scopes = {MetricsScope::kProcess, MetricsScope::kPool}};
  const auto q = parse_metrics_query({}, config);
  ASSERT_TRUE(q.has_value());
  EXPECT_TRUE(q->wants(MetricsScope::kPool, "vigil_pool_status"));
  EXPECT_FALSE(q->wants(MetricsScope::kMember, "vigil_member_up"));
  const auto asked = parse_metrics_query({{"scope", "member"}}, config);
  ASSERT_TRUE(asked.has_value());
  EXPECT_TRUE(asked->wants(MetricsScope::kMember, "vigil_member_up"));
  EXPECT_FALSE(asked->wants(MetricsScope::kPool, "vigil_pool_status"));
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
