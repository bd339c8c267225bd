// What one scrape of /metrics asks for: the scopes (`?scope=`, or admin.metrics.scopes), the
// families by name (`?name[]=`), members in maintenance left out (`?no-maint`) and the members'
// check-duration histograms (`?histograms=member`, or admin.metrics.member_histograms). Pure; any
// thread.
#pragma once

#include <array>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "admin/target.h"
#include "model/process.h"

namespace vigil::admin {

using model::MetricsScope;

// The family of the members' check durations: 15 of a member's 48 series.
inline constexpr std::string_view kMemberHistogram = "vigil_member_check_duration_seconds";

struct MetricsQuery {
  std::array<bool, 4> scopes{true, true, true, true};  // by MetricsScope
  std::vector<std::string> names;                      // families by name; empty: every one
  bool no_maint = false;  // members with the operator's maint state left out
  // The members' check-duration histograms; also served when `names` names them.
  bool member_histograms = true;

  bool operator==(const MetricsQuery&) const = default;

  // Whether the family `name` of `scope` is served.
  bool wants(MetricsScope scope, std::string_view name) const;
};

// The query of a scrape; what it does not say is `defaults`' (admin.metrics: the scopes of a
// scrape without `scope=`, the members' histograms). An unknown parameter, scope or `histograms`
// value, or a name that is no metric name, is an error: the message for a 400, naming what is
// allowed.
std::expected<MetricsQuery, std::string> parse_metrics_query(const Target::Query& query,
                                                             const model::AdminMetrics& defaults);

}  // namespace vigil::admin
