// Which query parameters each Octavia collection filters and sorts by, and the field of vigil's
// JSON each one reads: Octavia 11 accepts a parameter that names a column of the collection's
// data model, in the API's spelling or the model's (`admin_state_up` or `enabled`,
// `loadbalancer_id` or `load_balancer_id`), and answers 400 for any other
// (octavia/api/common/pagination.py, PaginationHelper.apply). Pure; any thread.
#pragma once

#include <optional>
#include <string_view>

namespace vigil::admin {

// How a parameter's text compares with the field.
enum class FilterKind {
  kText,    // equal strings; SQL's NULL (an absent or null field) equals nothing
  kNumber,  // equal numbers ("80" and 80)
  kBool,    // oslo's bool_from_string: "1", "t", "true", "on", "y", "yes" are true, all else false
  kRelation,  // the field is a list of {"id": ...}: one of them has this id
};

struct FilterKey {
  std::string_view field;  // in vigil's JSON of the object
  FilterKind kind = FilterKind::kText;
};

// The key of `name` in `collection` ("pools", "members", ...), or nullopt: Octavia's 400.
// Tags (`tags`, `tags-any`, ...) and paging parameters are no filter keys.
std::optional<FilterKey> filter_key(std::string_view collection, std::string_view name);

}  // namespace vigil::admin
