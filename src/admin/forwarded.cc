#include "admin/forwarded.h"

#include <boost/url/parse.hpp>
#include <optional>

#include "base/ascii.h"

namespace vigil::admin {
namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The first element of a comma-separated header: the proxy nearest the client wrote it.
std::string_view first_element(std::string_view value) {
  return trimmed(value.substr(0, value.find(',')));
}

// A parameter of RFC 7239's first forwarded-element ("proto", "host"), its quotes removed.
std::string_view forwarded_param(std::string_view header, std::string_view name) {
  std::string_view element = first_element(header);
  while (!element.empty()) {
    const size_t semi = element.find(';');
    const std::string_view pair = trimmed(element.substr(0, semi));
    element = semi == std::string_view::npos ? std::string_view() : element.substr(semi + 1);
    const size_t eq = pair.find('=');
    if (eq == std::string_view::npos || lowercase(trimmed(pair.substr(0, eq))) != name) continue;
    std::string_view value = trimmed(pair.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    return value;
  }
  return {};
}

// `scheme://host` + `prefix` when Boost.URL reads it as exactly that: an http(s) URL whose
// authority is the host alone and whose path is the prefix (no query, fragment or user).
std::optional<std::string> checked(std::string_view scheme, std::string_view host,
                                   std::string_view prefix) {
  std::string base = lowercase(scheme) + "://" + std::string(host);
  const size_t authority_end = base.size();
  base += prefix;
  while (base.size() > authority_end && base.ends_with('/')) base.pop_back();
  const auto url = boost::urls::parse_absolute_uri(base);
  if (!url || (url->scheme() != "http" && url->scheme() != "https") || host.empty() ||
      url->encoded_host_and_port() != host || url->has_userinfo() || url->has_query() ||
      url->has_fragment() || url->encoded_path() != base.substr(authority_end)) {
    return std::nullopt;
  }
  return base;
}

}  // namespace

std::string client_base(const ForwardedHeaders& h, bool trusted) {
  const std::string_view host = trimmed(h.host);
  const auto plain = [&] { return host.empty() ? std::string() : "http://" + std::string(host); };
  if (!trusted) return plain();
  std::string_view scheme;
  std::string_view forwarded_host;
  if (!h.forwarded.empty()) {
    scheme = forwarded_param(h.forwarded, "proto");
    forwarded_host = forwarded_param(h.forwarded, "host");
  } else {
    scheme = first_element(h.x_forwarded_proto);
    forwarded_host = first_element(h.x_forwarded_host);
  }
  if (scheme.empty()) scheme = "http";
  if (forwarded_host.empty()) forwarded_host = host;
  if (forwarded_host.empty()) return {};
  const std::string_view prefix = first_element(h.x_forwarded_prefix);
  // A path, never "//host" (which a client resolving the link would take for an authority).
  if (!prefix.empty() && (!prefix.starts_with('/') || prefix.starts_with("//"))) return plain();
  return checked(scheme, forwarded_host, prefix).value_or(plain());
}

}  // namespace vigil::admin
