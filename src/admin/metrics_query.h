// What one scrape of /metrics asks for: the scopes (`?scope=`, or admin.metrics.scopes), the
// families by name (`?name[]=`), members in maintenance left out (`?no-maint`) and the members'
// check-duration histograms (`?histograms=member`, or admin.metrics.member_histograms). Pure; any
// thread.
#pragma once

#include <array>
#include <cstddef>
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

// `admin.metrics.scopes: auto` (the default): a scrape without `scope=` gets every scope while
// the vigil runs at most this many members in all, process and pool only above it. Every scope of
// 30,000 members is 224 MB and 1.16 million series a scrape, gigabytes in a Prometheus that takes
// it every 15 s; but a vigil of a few pools keeps the member families its shipped alerts read.
inline constexpr size_t kAutoScopesMemberLimit = 2000;

struct MetricsQuery {
  std::array<bool, 4> scopes{true, true, true, true};  // by MetricsScope
  std::vector<std::string> names;                      // families by name; empty: every one
  bool no_maint = false;  // members with the operator's maint state left out
  // The members' check-duration histograms; also served when `names` names them.
  bool member_histograms = true;
  // The scopes are `auto`'s, still to be resolved against the members rendered (resolve_scopes).
  bool auto_scopes = false;
  // `auto` left the member and listener families out: vigil_metrics_members_left_out says so.
  bool members_left_out = false;

  bool operator==(const MetricsQuery&) const = default;

  // Whether the family `name` of `scope` is served.
  bool wants(MetricsScope scope, std::string_view name) const;
};

// The query a render of `members` members (every pool's of every load balancer) serves. `auto`
// scopes become every scope up to kAutoScopesMemberLimit members, process and pool above it
// (members_left_out) unless the query names families: naming a family is asking for it, and the
// names bound the size. Scopes that were chosen (`scope=`, a list in the config) stay as they are.
MetricsQuery resolve_scopes(MetricsQuery query, size_t members);

// The query of a scrape; what it does not say is `defaults`' (admin.metrics: the scopes of a
// scrape without `scope=`, `auto` ones to be resolved, the members' histograms). An unknown
// parameter, scope or `histograms` value, or a name that is no metric name, is an error: the
// message for a 400, naming what is allowed.
std::expected<MetricsQuery, std::string> parse_metrics_query(const Target::Query& query,
                                                             const model::AdminMetrics& defaults);

}  // namespace vigil::admin
