#include "admin/octavia/json_filter.h"

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <charconv>
#include <string>

#include "admin/octavia/json_page.h"
#include "admin/octavia/writes.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

void add_tags(std::vector<std::string>& into, std::string_view value) {
  for (size_t start = 0;;) {
    const size_t end = value.find(',', start);
    into.emplace_back(value.substr(start, end - start));
    if (end == std::string_view::npos) return;
    start = end + 1;
  }
}

std::vector<std::string>* tag_list(Filters& f, std::string_view name) {
  if (name == "tags") return &f.tags;
  if (name == "tags-any") return &f.tags_any;
  if (name == "not-tags") return &f.not_tags;
  if (name == "not-tags-any") return &f.not_tags_any;
  return nullptr;
}

bool number_equals(const json::value& v, std::string_view want) {
  if (!v.is_number()) return false;
  double n = 0;
  const char* end = want.data() + want.size();
  const auto [ptr, ec] = std::from_chars(want.data(), end, n);
  return ec == std::errc() && ptr == end && v.to_number<double>() == n;
}

bool has_id(const json::value& list, std::string_view want) {
  if (!list.is_array()) return false;
  return std::ranges::any_of(list.as_array(), [&](const json::value& item) {
    const json::value* id = item.is_object() ? item.as_object().if_contains("id") : nullptr;
    return id != nullptr && id->is_string() && id->as_string() == want;
  });
}

bool condition_holds(const json::object& o, const Filters::Condition& c) {
  const json::value* v = o.if_contains(c.key.field);
  if (v == nullptr || v->is_null()) return false;
  switch (c.key.kind) {
    case FilterKind::kText:
      return !c.want.empty() && v->is_string() && v->as_string() == c.want;
    case FilterKind::kNumber:
      return number_equals(*v, c.want);
    case FilterKind::kBool:
      return v->is_bool() && v->as_bool() == bool_from_string(c.want);
    case FilterKind::kRelation:
      return has_id(*v, c.want);
  }
  return false;
}

std::vector<std::string_view> tags_of(const json::object& o) {
  std::vector<std::string_view> out;
  const json::value* v = o.if_contains("tags");
  if (v == nullptr || !v->is_array()) return out;
  for (const json::value& t : v->as_array()) {
    if (t.is_string()) out.emplace_back(t.as_string());
  }
  return out;
}

}  // namespace

std::expected<Filters, std::string> parse_filters(std::string_view collection,
                                                  const Target& target) {
  Filters out;
  std::vector<std::string_view> seen;
  for (const auto& [name, value] : target.query) {
    if (is_page_parameter(name)) continue;
    if (std::vector<std::string>* tags = tag_list(out, name)) {
      add_tags(*tags, value);
      continue;
    }
    const auto key = filter_key(collection, name);
    if (!key || std::ranges::find(seen, name) != seen.end()) {
      return std::unexpected(std::string(kInvalidFilter));
    }
    seen.push_back(name);
    out.conditions.push_back({.key = *key, .want = value});
  }
  return out;
}

bool Filters::matches(const json::object& o) const {
  for (const Condition& c : conditions) {
    if (!condition_holds(o, c)) return false;
  }
  if (tags.empty() && tags_any.empty() && not_tags.empty() && not_tags_any.empty()) return true;
  const std::vector<std::string_view> have = tags_of(o);
  const auto has = [&](const std::string& t) { return std::ranges::find(have, t) != have.end(); };
  if (!std::ranges::all_of(tags, has)) return false;
  if (!tags_any.empty() && !std::ranges::any_of(tags_any, has)) return false;
  if (!not_tags.empty() && std::ranges::all_of(not_tags, has)) return false;
  return std::ranges::none_of(not_tags_any, has);
}

}  // namespace vigil::admin
