#include "config/haproxy/values.h"

#include <gtest/gtest.h>

namespace vigil::config::haproxy {
namespace {

using namespace std::chrono_literals;

TEST(HaproxyDuration, UnitsAndBareMilliseconds) {
  EXPECT_EQ(parse_duration("5000").value(), 5s);
  EXPECT_EQ(parse_duration("0").value(), 0s);
  EXPECT_EQ(parse_duration("250ms").value(), 250ms);
  EXPECT_EQ(parse_duration("100us").value(), 100us);
  EXPECT_EQ(parse_duration("10s").value(), 10s);
  EXPECT_EQ(parse_duration("1m").value(), 1min);
  EXPECT_EQ(parse_duration("2h").value(), 2h);
  EXPECT_EQ(parse_duration("1d").value(), 24h);
  EXPECT_EQ(parse_duration("24d").value(), 24 * 24h);
}

TEST(HaproxyDuration, Errors) {
  for (const char* bad : {"", "s", "-1s", "1.5s", "1m30s", "10 s", "10sec", "10S", "5x", "25d",
                          "9999999999999d", "99999999999999999999"}) {
    EXPECT_FALSE(parse_duration(bad).has_value()) << bad;
  }
  EXPECT_EQ(parse_duration("25d").error().message,
            "invalid time \"25d\": larger than HAProxy's limit of 24.8 days");
  EXPECT_EQ(parse_duration("1m30s").error().message,
            "invalid time \"1m30s\": the unit must be us, ms, s, m, h or d (none means ms), and "
            "only one number may be given");
}

TEST(HaproxyInteger, Range) {
  EXPECT_EQ(parse_integer("3", 0, 10).value(), 3);
  EXPECT_EQ(parse_integer("-1", -5, 10).value(), -1);
  for (const char* bad : {"", "11", "-1", "3x", "x", "99999999999999999999999", "+3"}) {
    EXPECT_FALSE(parse_integer(bad, 0, 10).has_value()) << bad;
  }
  EXPECT_EQ(parse_integer("11", 0, 10).error().message,
            "must be an integer from 0 to 10, not \"11\"");
}

TEST(HaproxyBind, Forms) {
  struct Case {
    const char* text;
    const char* address;
    uint16_t port;
  };
  const Case cases[] = {
      {"*:6443", "0.0.0.0", 6443},
      {":6443", "0.0.0.0", 6443},
      {"0.0.0.0:6443", "0.0.0.0", 6443},
      {"10.0.0.5:6443", "10.0.0.5", 6443},
      {":::6443", "::", 6443},
      {"[::]:6443", "::", 6443},
      {"fd00::5:6443", "fd00::5", 6443},
      {"[fd00::5]:443", "fd00::5", 443},
      {"ipv4@10.0.0.5:80", "10.0.0.5", 80},
      {"ipv6@:::80", "::", 80},
      {"127.0.0.1:0", "127.0.0.1", 0},
  };
  for (const Case& c : cases) {
    auto r = parse_bind_targets(c.text);
    ASSERT_TRUE(r.has_value()) << c.text << ": " << r.error().message;
    ASSERT_EQ(r->size(), 1u) << c.text;
    EXPECT_EQ((*r)[0].address, c.address) << c.text;
    EXPECT_EQ((*r)[0].port, c.port) << c.text;
  }
  auto list = parse_bind_targets("10.0.0.5:6443,[::1]:6443");
  ASSERT_TRUE(list.has_value());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[1].address, "::1");
}

TEST(HaproxyBind, Errors) {
  for (const char* bad : {"6443", "*", "lb.example.com:6443", "10.0.0.5:6443-6445",
                          "10.0.0.5:70000", "10.0.0.5:x", "/run/haproxy.sock", "unix@/run/x",
                          "abns@x", "fd@3", "[::1]", "[::1]6443", "10.0.0.300:80", "a,b"}) {
    EXPECT_FALSE(parse_bind_targets(bad).has_value()) << bad;
  }
  EXPECT_EQ(parse_bind_targets("10.0.0.5:6443-6445").error().message,
            "\"10.0.0.5:6443-6445\": port ranges are not supported; write one port per bind");
  EXPECT_NE(parse_bind_targets("unix@/run/x").error().message.find("not a TCP address"),
            std::string::npos);
}

TEST(HaproxyServer, Forms) {
  struct Case {
    const char* text;
    const char* host;
    std::optional<uint16_t> port;
  };
  const Case cases[] = {
      {"10.0.0.11:6443", "10.0.0.11", 6443},
      {"10.0.0.11", "10.0.0.11", std::nullopt},
      {"master-01.example.local:6443", "master-01.example.local", 6443},
      {"master-01.example.local", "master-01.example.local", std::nullopt},
      {"[fd00::11]:6443", "fd00::11", 6443},
      {"[fd00::11]", "fd00::11", std::nullopt},
      {"fd00::11", "fd00::11", std::nullopt},
      {"fd00::11:6443", "fd00::11", 6443},
      {"ipv6@fd00::11", "fd00::11", std::nullopt},
      {"10.0.0.11:", "10.0.0.11", std::nullopt},
  };
  for (const Case& c : cases) {
    auto r = parse_server_target(c.text);
    ASSERT_TRUE(r.has_value()) << c.text << ": " << r.error().message;
    EXPECT_EQ(r->host, c.host) << c.text;
    EXPECT_EQ(r->port, c.port) << c.text;
  }
}

TEST(HaproxyServer, Errors) {
  for (const char* bad :
       {"", "*:80", "0.0.0.0:80", ":80", "10.0.0.1:+1", "10.0.0.1:-1", "10.0.0.1:0",
        "10.0.0.1:65536", "bad_host!:80", "/run/x.sock", "unix@/run/x", "[fd00::1", "10.0.0.300"}) {
    EXPECT_FALSE(parse_server_target(bad).has_value()) << bad;
  }
  EXPECT_NE(parse_server_target("10.0.0.1:+1").error().message.find("port offsets"),
            std::string::npos);
}

TEST(HaproxyNames, MadeValidAndUnique) {
  std::set<std::string> taken;
  EXPECT_EQ(vigil_name("api-6443", taken), "api-6443");
  EXPECT_EQ(vigil_name("api-6443", taken), "api-6443-2");
  EXPECT_EQ(vigil_name("api-6443", taken), "api-6443-3");
  EXPECT_EQ(vigil_name("pool:listener", taken), "pool_listener");
  EXPECT_EQ(vigil_name("pool_listener", taken), "pool_listener-2");
  EXPECT_EQ(vigil_name("", taken), "unnamed");
  const std::string octavia =
      "7d5d4323-f382-4a85-a965-4fcedd8c77f2:199362ee-e305-4ebf-947a-d3c155341ac9";
  const std::string first = vigil_name(octavia, taken);
  EXPECT_EQ(first, "7d5d4323-f382-4a85-a965-4fcedd8c77f2_199362ee-e305-4ebf-947a-d3c");
  const std::string second = vigil_name(octavia, taken);
  EXPECT_EQ(second.size(), 64u);
  EXPECT_TRUE(second.ends_with("-2"));
  EXPECT_NE(first, second);
}

}  // namespace
}  // namespace vigil::config::haproxy
