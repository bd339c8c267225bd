// The paging of Octavia's list calls, as octavia/api/common/pagination.py does it: `sort`
// (`key:dir,...`) or `sort_key`/`sort_dir`; `marker` (the id of the last object of the previous
// page) and `page_reverse`; `limit`; `fields` (the fields each object keeps, repeated or
// comma-separated). `<collection>_links` get Octavia's `next` and `previous` links.
// The order is Octavia's: the sort keys, then `created_at` and `id` ascending (so a config file's
// objects, all created at start-up, come in the order of their ids). Without a `limit` a page
// holds at most the target's page_max_limit objects (admin.octavia_pagination_max_limit, as
// Octavia's `[api_settings] pagination_max_limit`), and a larger `limit` is cut to it. Pure.
#pragma once

#include <boost/json/object.hpp>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "admin/target.h"

namespace vigil::admin {

// Octavia's 400 for a bad limit, marker, sort key or direction: "Supplied pagination limit 'x'
// is not valid."
struct PageError {
  std::string message;
  // Octavia reads `limit` and `sort` (but for the keys' names) in its pagination hook, before its
  // API code runs, so those errors come in webob's shape (http.h framework_fault); a bad sort key
  // or marker comes later, as the API's faultstring.
  bool framework = false;
};

// Whether a query parameter is one of the above, and so no filter.
bool is_page_parameter(std::string_view name);

// `objects` of the collection `key` ("pools": its sort keys are filter_keys.h's) in the order and
// page the query asks for, as {key: [...], key_links: [...]}. `matches[i]`: objects[i] passes the
// filters; a marker may name an object that does not (it only says where the page starts), as in
// Octavia, whose marker is looked up unfiltered.
std::expected<boost::json::object, PageError> page(std::string_view key,
                                                   std::vector<boost::json::object> objects,
                                                   const std::vector<bool>& matches,
                                                   const Target& target);

// The fields `?fields=a&fields=b,c` asks for; empty: all.
std::vector<std::string> requested_fields(const Target& target);

// `o` with only `fields` (as Octavia's _filter_fields: an unknown name is left out quietly).
boost::json::object only_fields(const boost::json::object& o,
                                const std::vector<std::string>& fields);

}  // namespace vigil::admin
