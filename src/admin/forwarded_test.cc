// The links' base behind a reverse proxy, as oslo.middleware's http_proxy_to_wsgi reads it.
#include "admin/forwarded.h"

#include <gtest/gtest.h>

namespace vigil::admin {
namespace {

TEST(Forwarded, UntrustedHeadersAreIgnored) {
  const ForwardedHeaders h{.host = "127.0.0.1:8404",
                           .forwarded = "proto=https;host=evil.example",
                           .x_forwarded_proto = "https",
                           .x_forwarded_host = "evil.example",
                           .x_forwarded_prefix = "/x"};
  EXPECT_EQ(client_base(h, false), "http://127.0.0.1:8404");
  EXPECT_EQ(client_base({}, false), "");
}

TEST(Forwarded, TrustedXForwardedHeadersNameSchemeHostAndPrefix) {
  struct Case {
    const char* description;
    ForwardedHeaders headers;
    const char* expected;
  };
  const Case cases[] = {
      {.description = "proto and host",
       .headers = {.host = "10.0.0.5:8404",
                   .x_forwarded_proto = "https",
                   .x_forwarded_host = "cloud.example"},
       .expected = "https://cloud.example"},
      {.description = "proto alone keeps Host",
       .headers = {.host = "cloud.example:8443", .x_forwarded_proto = "HTTPS"},
       .expected = "https://cloud.example:8443"},
      {.description = "host alone keeps http",
       .headers = {.host = "10.0.0.5", .x_forwarded_host = "[2001:db8::1]:80"},
       .expected = "http://[2001:db8::1]:80"},
      {.description = "the proxy nearest the client counts",
       .headers = {.host = "h",
                   .x_forwarded_proto = "https, http",
                   .x_forwarded_host = "a.example, b.example"},
       .expected = "https://a.example"},
      {.description = "a prefix goes in front of the path",
       .headers = {.host = "h", .x_forwarded_prefix = "/load-balancer/"},
       .expected = "http://h/load-balancer"},
      {.description = "no Host and none forwarded: paths",
       .headers = {.x_forwarded_proto = "https"},
       .expected = ""},
  };
  for (const Case& c : cases) EXPECT_EQ(client_base(c.headers, true), c.expected) << c.description;
}

TEST(Forwarded, Rfc7239WinsOverXForwardedAndIsReadFromItsFirstElement) {
  EXPECT_EQ(client_base({.host = "h",
                         .forwarded = "for=192.0.2.1;Proto=https;host=\"lb.example:8443\", "
                                      "for=10.0.0.1;proto=http;host=inner",
                         .x_forwarded_proto = "http",
                         .x_forwarded_host = "other.example"},
                        true),
            "https://lb.example:8443");
  EXPECT_EQ(client_base({.host = "h", .forwarded = "for=192.0.2.1"}, true), "http://h");
}

TEST(Forwarded, HeadersThatMakeNoHttpUrlAreLeftOut) {
  for (const ForwardedHeaders& h : {
           ForwardedHeaders{.host = "h", .x_forwarded_proto = "javascript"},
           ForwardedHeaders{.host = "h", .x_forwarded_host = "evil.example/path"},
           ForwardedHeaders{.host = "h", .x_forwarded_host = "user@evil.example"},
           ForwardedHeaders{.host = "h", .x_forwarded_host = "evil.example?q"},
           ForwardedHeaders{.host = "h", .x_forwarded_prefix = "no-slash"},
           ForwardedHeaders{.host = "h", .x_forwarded_prefix = "/a?b"},
           ForwardedHeaders{.host = "h", .x_forwarded_prefix = "//evil.example"},
       }) {
    EXPECT_EQ(client_base(h, true), "http://h")
        << h.x_forwarded_proto << h.x_forwarded_host << h.x_forwarded_prefix;
  }
}

}  // namespace
}  // namespace vigil::admin
