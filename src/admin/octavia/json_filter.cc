#include "admin/octavia/json_filter.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <string>

#include "admin/octavia/json_page.h"
#include "base/ascii.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

// nullopt: the field is no scalar (or absent), so the parameter does not apply to it.
std::optional<bool> scalar_matches(const json::value& v, std::string_view want) {
  if (v.is_string()) return v.as_string() == want;
  if (v.is_bool()) return iequals(want, v.as_bool() ? "true" : "false");
  if (v.is_null()) return want.empty() || iequals(want, "none") || iequals(want, "null");
  if (v.is_number()) return json::serialize(v) == want;
  return std::nullopt;
}

bool relation_matches(const json::value& list, std::string_view want) {
  if (!list.is_array()) return false;
  for (const json::value& item : list.as_array()) {
    if (!item.is_object()) continue;
    const json::value* id = item.as_object().if_contains("id");
    if (id != nullptr && id->is_string() && id->as_string() == want) return true;
  }
  return false;
}

}  // namespace

bool matches_filters(const json::object& o, const Target& target) {
  for (const auto& [key, want] : target.query) {
    if (is_page_parameter(key)) continue;
    if (const json::value* v = o.if_contains(key)) {
      if (auto m = scalar_matches(*v, want); m && !*m) return false;
      continue;
    }
    if (key.size() > 3 && key.ends_with("_id")) {
      const std::string list = key.substr(0, key.size() - 3) + "s";
      if (const json::value* l = o.if_contains(list); l != nullptr && !relation_matches(*l, want)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace vigil::admin
