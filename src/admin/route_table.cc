#include "admin/route_table.h"

#include <string>
#include <vector>

namespace vigil::admin {
namespace {

bool segment_matches(std::string_view pattern, std::string_view segment) {
  if (pattern.starts_with('{')) return true;
  while (true) {
    const size_t bar = pattern.find('|');
    if (pattern.substr(0, bar) == segment) return true;
    if (bar == std::string_view::npos) return false;
    pattern.remove_prefix(bar + 1);
  }
}

}  // namespace

bool path_matches(std::string_view pattern, const std::vector<std::string>& segments) {
  if (pattern.starts_with('/')) pattern.remove_prefix(1);
  size_t at = 0;
  while (!pattern.empty()) {
    const size_t slash = pattern.find('/');
    const std::string_view part = pattern.substr(0, slash);
    pattern = slash == std::string_view::npos ? std::string_view() : pattern.substr(slash + 1);
    if (part == "*" && pattern.empty()) return true;
    if (at == segments.size() || !segment_matches(part, segments[at])) return false;
    ++at;
  }
  return at == segments.size();
}

std::span<const Route> rows_of(std::span<const Route> table,
                               const std::vector<std::string>& segments) {
  for (size_t i = 0; i < table.size(); ++i) {
    if (!path_matches(table[i].path, segments)) continue;
    size_t end = i + 1;
    while (end < table.size() && table[end].path == table[i].path) ++end;
    return table.subspan(i, end - i);
  }
  return {};
}

Response method_not_allowed(std::span<const Route> rows) {
  std::string allow;
  std::string said;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string method(rows[i].method);
    allow += (i > 0 ? ", " : "") + method;
    said += (i == 0 ? "" : i + 1 == rows.size() ? " and " : ", ") + method;
  }
  Response r = fault(405, "Method not allowed: this path " +
                              std::string(rows.size() == 1 ? "only answers " : "answers ") + said);
  r.headers.emplace_back("Allow", std::move(allow));
  return r;
}

}  // namespace vigil::admin
