// Where a client reached the Octavia API, from the headers a reverse proxy adds: what its absolute
// links start with. Pure; any thread.
#pragma once

#include <string>
#include <string_view>

namespace vigil::admin {

// The request's own Host, and what a proxy in front says the client used (empty: not sent).
struct ForwardedHeaders {
  std::string_view host;
  std::string_view forwarded;           // RFC 7239: "for=192.0.2.1;proto=https;host=lb.example"
  std::string_view x_forwarded_proto;   // "https"
  std::string_view x_forwarded_host;    // "lb.example:443"
  std::string_view x_forwarded_prefix;  // "/load-balancer"
};

// "scheme://host[prefix]" for the links, as oslo.middleware's http_proxy_to_wsgi sets Octavia's
// request URL when `[oslo_middleware] enable_proxy_headers_parsing` is on (`trusted`): the first
// element of `Forwarded` (its proto and host), else X-Forwarded-Proto and -Host, and in front of
// the path X-Forwarded-Prefix; what they leave out comes from `http://` and Host. Untrusted, only
// `http://` and Host count. Headers that would make no http(s) URL (a bad scheme, a host with a
// path or user) are left out: a link is never built from them. Empty: no Host, links are paths.
std::string client_base(const ForwardedHeaders& h, bool trusted);

}  // namespace vigil::admin
