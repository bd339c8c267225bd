#include "admin/target.h"

#include <boost/url/params_view.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/parse_query.hpp>

namespace vigil::admin {
namespace {

// '+' is a space in queries and forms, as browsers and Python's urlencode write it.
const boost::urls::encoding_opts kPlusIsSpace{true, false, false};

Target::Query decoded(const boost::urls::params_view& params) {
  Target::Query out;
  for (const boost::urls::param& p : params) {
    if (p.key.empty() && !p.has_value) continue;  // "a=1&&b=2"
    out.emplace_back(p.key, p.value);
  }
  return out;
}

}  // namespace

std::optional<std::string> Target::param(std::string_view name) const {
  for (const auto& [key, value] : query) {
    if (key == name) return value;
  }
  return std::nullopt;
}

std::expected<Target, std::string> parse_target(std::string_view target) {
  const auto url = boost::urls::parse_origin_form(target);
  if (!url) return std::unexpected("malformed request target: " + url.error().message());
  Target out;
  for (std::string segment : url->segments()) {
    if (!segment.empty()) out.segments.push_back(std::move(segment));
  }
  out.query = decoded(boost::urls::params_view(url->params(), kPlusIsSpace));
  return out;
}

std::optional<Target::Query> parse_form(std::string_view body) {
  const auto query = boost::urls::parse_query(body);
  if (!query) return std::nullopt;
  return decoded(boost::urls::params_view(*query, kPlusIsSpace));
}

}  // namespace vigil::admin
