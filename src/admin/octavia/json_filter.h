// The filters of Octavia's list calls, as Octavia 11 applies them (octavia/api/common/
// pagination.py and db/base_models.py, apply_filter): `?name=x&operating_status=ONLINE` keeps
// the objects whose column has that value; `tags`, `tags-any`, `not-tags`, `not-tags-any` (a
// comma-separated list, or repeated) keep those with all, any, not all, or none of the tags.
// A parameter the collection has no column for is Octavia's 400. Pure; any thread.
#pragma once

#include <boost/json/fwd.hpp>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "admin/octavia/filter_keys.h"
#include "admin/target.h"

namespace vigil::admin {

// Octavia's message for an unknown or repeated filter.
inline constexpr std::string_view kInvalidFilter =
    "One or more arguments are either duplicate or invalid";

struct Filters {
  struct Condition {
    FilterKey key;
    std::string want;
  };
  std::vector<Condition> conditions;
  std::vector<std::string> tags, tags_any, not_tags, not_tags_any;

  // Whether `o` (an object of the collection, in vigil's JSON) passes every filter. An absent
  // or null field matches no value, and the empty text matches none either: Octavia keeps an
  // unset name as SQL's NULL, which `name=` does not match.
  bool matches(const boost::json::object& o) const;
};

// The filters of `target`'s query for `collection` ("pools", ...); the message of Octavia's 400
// for a parameter that is no filter of it, or a filter given twice (Octavia answers the latter
// with a 500; tags may repeat).
std::expected<Filters, std::string> parse_filters(std::string_view collection,
                                                  const Target& target);

}  // namespace vigil::admin
