// A request target ("/v2/lbaas/pools?name=masters") split into decoded path segments and query
// parameters, parsed with Boost.URL (RFC 3986 origin-form). Pure; any thread.
#pragma once

#include <cstddef>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vigil::admin {

struct Target {
  using Query = std::vector<std::pair<std::string, std::string>>;
  std::vector<std::string> segments;  // "/v2/lbaas/pools/" -> {"v2", "lbaas", "pools"}
  Query query;
  // What absolute links in answers start with, the scheme and authority the client used (and a
  // proxy's path prefix): "http://127.0.0.1:8404"; empty: links are paths. routes.cc sets it.
  std::string link_base;
  // The longest page of an Octavia list (admin.octavia_pagination_max_limit); routes.cc sets it.
  size_t page_max_limit = 1000;

  // The first value of a query parameter, if present.
  std::optional<std::string> param(std::string_view name) const;
};

// Percent-escapes and '+' in the query are decoded; empty segments ("//", a trailing '/')
// dropped. A target that is no origin-form ("/a%2", "/a b", "http://h/") is an error: what is
// wrong with it, for a 400.
std::expected<Target, std::string> parse_target(std::string_view target);

// An HTML form's body ("a=1&b=x+y"), as a query; nullopt when it is malformed.
std::optional<Target::Query> parse_form(std::string_view body);

}  // namespace vigil::admin
