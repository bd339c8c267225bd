#include "admin/metrics_query.h"

#include <algorithm>

namespace vigil::admin {
namespace {

constexpr model::NameList kScopeChoices = model::name_list<MetricsScope>(", ", " or ");

// The text format's metric names: [a-zA-Z_:][a-zA-Z0-9_:]*.
bool is_metric_name(std::string_view name) {
  const auto letter = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  };
  if (name.empty() || !letter(name.front())) return false;
  return std::ranges::all_of(name, [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

}  // namespace

bool MetricsQuery::wants(MetricsScope scope, std::string_view name) const {
  if (!scopes[static_cast<size_t>(scope)]) return false;
  const bool named = std::ranges::find(names, name) != names.end();
  if (!names.empty() && !named) return false;
  return name != kMemberHistogram || member_histograms || named;
}

MetricsQuery resolve_scopes(MetricsQuery query, size_t members) {
  if (!query.auto_scopes) return query;
  query.auto_scopes = false;
  if (members <= kAutoScopesMemberLimit || !query.names.empty()) return query;
  query.scopes.fill(false);
  query.scopes[static_cast<size_t>(MetricsScope::kProcess)] = true;
  query.scopes[static_cast<size_t>(MetricsScope::kPool)] = true;
  query.members_left_out = true;
  return query;
}

std::expected<MetricsQuery, std::string> parse_metrics_query(const Target::Query& query,
                                                             const model::AdminMetrics& defaults) {
  MetricsQuery out{.member_histograms = defaults.member_histograms,
                   .auto_scopes = defaults.auto_scopes};
  if (!out.auto_scopes) {
    out.scopes.fill(false);
    for (MetricsScope s : defaults.scopes) out.scopes[static_cast<size_t>(s)] = true;
  }
  bool scoped = false;
  for (const auto& [key, value] : query) {
    if (key == "scope") {
      const auto scope = model::parse<MetricsScope>(value);
      if (!scope) {
        return std::unexpected("unknown scope \"" + value + "\"; use " +
                               std::string(kScopeChoices.view()) + " (repeat scope= for more)");
      }
      if (!scoped) out.scopes.fill(false);
      scoped = true;
      out.auto_scopes = false;
      out.scopes[static_cast<size_t>(*scope)] = true;
    } else if (key == "name[]") {
      if (!is_metric_name(value)) {
        return std::unexpected("name[]=\"" + value +
                               "\" is no metric family name (like vigil_member_up)");
      }
      out.names.push_back(value);
    } else if (key == "no-maint") {
      out.no_maint = true;
    } else if (key == "histograms") {
      if (value != "member") {
        return std::unexpected("unknown histograms=\"" + value + "\"; use histograms=member");
      }
      out.member_histograms = true;
    } else {
      return std::unexpected("unknown parameter \"" + key +
                             "\"; /metrics takes scope=, name[]=, no-maint and histograms=member");
    }
  }
  return out;
}

}  // namespace vigil::admin
