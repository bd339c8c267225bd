#include "health/http_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace vigil::health {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(HttpCheckTest, RequestTargetAsksKubeEndpointsForVerbose) {
  struct Case {
    std::string description;
    std::string path;
    std::string expected;
  };
  const Case cases[] = {
      {.description = "readyz", .path = "/readyz", .expected = "/readyz?verbose"},
      {.description = "livez", .path = "/livez", .expected = "/livez?verbose"},
      {.description = "healthz", .path = "/healthz", .expected = "/healthz?verbose"},
      {.description = "query kept",
       .path = "/readyz?exclude=etcd",
       .expected = "/readyz?exclude=etcd"},
      {.description = "other path", .path = "/status", .expected = "/status"},
      {.description = "sub-path", .path = "/readyz/etcd", .expected = "/readyz/etcd"},
      {.description = "empty", .path = "", .expected = "/"},
  };
  for (const Case& c : cases) EXPECT_EQ(request_target(c.path), c.expected) << c.description;
}

TEST(HttpCheckTest, HostHeader) {
  model::HealthMonitor m;
  EXPECT_EQ(host_header(m, "10.0.0.1", 6443, true), "10.0.0.1:6443");
  EXPECT_EQ(host_header(m, "api.example", 443, true), "api.example");
  EXPECT_EQ(host_header(m, "api.example", 80, false), "api.example");
  EXPECT_EQ(host_header(m, "api.example", 443, false), "api.example:443");
  EXPECT_EQ(host_header(m, "fd00::1", 6443, true), "[fd00::1]:6443");
  m.host = "kubernetes.default";
  EXPECT_EQ(host_header(m, "10.0.0.1", 6443, true), "kubernetes.default");
}

TEST(HttpCheckTest, BuildRequest) {
  auto r = build_request("GET", "/readyz?verbose", "10.0.0.1:6443", "", false);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r,
            "GET /readyz?verbose HTTP/1.1\r\nHost: 10.0.0.1:6443\r\nUser-Agent: vigil-health\r\n"
            "Accept: */*\r\nConnection: close\r\n\r\n");
  r = build_request("HEAD", "/", "h", "abc.def", true);
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(*r, HasSubstr("\r\nAuthorization: Bearer abc.def\r\n\r\n"));
  EXPECT_THAT(*r, Not(HasSubstr("Connection:")));
}

TEST(HttpCheckTest, BuildRequestRejectsInjection) {
  EXPECT_FALSE(build_request("GET", "/", "h", "tok\r\nX-Evil: 1", false).has_value());
  EXPECT_FALSE(build_request("GET", "/", "h\r\nX: y", "", false).has_value());
  EXPECT_FALSE(build_request("GET", "/a b", "h", "", false).has_value());
  EXPECT_FALSE(build_request("GET /x", "/", "h", "", false).has_value());
  EXPECT_FALSE(build_request("", "/", "h", "", false).has_value());
}

TEST(HttpCheckTest, ReadBearerTokenTrims) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string file = (dir / ("vigil-token-" + std::to_string(::getpid()))).string();
  { std::ofstream(file) << "  s3cret.token\n\n"; }
  auto token = read_bearer_token(file);
  ASSERT_TRUE(token.has_value()) << token.error().message;
  EXPECT_EQ(*token, "s3cret.token");
  { std::ofstream(file) << "\n"; }
  EXPECT_FALSE(read_bearer_token(file).has_value());
  std::filesystem::remove(file);
  auto missing = read_bearer_token(file);
  ASSERT_FALSE(missing.has_value());
  EXPECT_THAT(missing.error().message, HasSubstr(file));
}

constexpr std::string_view kKubeFailure =
    "[+]ping ok\n"
    "[+]log ok\n"
    "[-]etcd failed: reason withheld\n"
    "[+]informer-sync ok\n"
    "  [-]poststarthook/rbac/bootstrap-roles failed: not finished  \n"
    "readyz check failed\n";

TEST(HttpCheckTest, ResultOfAnExpectedCode) {
  const auto r = http_result(200, "ok", model::ExpectedCodes{});
  EXPECT_EQ(r.outcome, model::Outcome::kOk);
  EXPECT_EQ(r.http_code, 200);
  EXPECT_TRUE(r.detail.empty());
  EXPECT_TRUE(r.failed_checks.empty());
}

TEST(HttpCheckTest, ResultOfAKubeFailure) {
  const auto r = http_result(500, kKubeFailure, model::ExpectedCodes{});
  EXPECT_EQ(r.outcome, model::Outcome::kBadStatus);
  EXPECT_EQ(r.http_code, 500);
  EXPECT_EQ(r.detail, "[+]ping ok");
  EXPECT_THAT(r.failed_checks,
              ElementsAre("[-]etcd failed: reason withheld",
                          "[-]poststarthook/rbac/bootstrap-roles failed: not finished"));
}

TEST(HttpCheckTest, ExpectedCodeRange) {
  const auto codes = model::ExpectedCodes::parse("200-204");
  ASSERT_TRUE(codes.has_value());
  EXPECT_TRUE(http_result(204, "", *codes).ok());
  EXPECT_FALSE(http_result(205, "", *codes).ok());
}

TEST(HttpCheckTest, FirstLine) {
  EXPECT_EQ(first_line("\n\n  hello world \r\nsecond"), "hello world");
  EXPECT_EQ(first_line("a\tb\001c"), "a?b?c");
  EXPECT_EQ(first_line(std::string(300, 'x')).size(), 200u);
  // "é" is two bytes; a cut at 200 must not leave half of one.
  std::string accents;
  for (int i = 0; i < 150; ++i) accents += "\xC3\xA9";
  EXPECT_EQ(first_line(accents).size(), 200u);
  EXPECT_EQ(first_line("x" + accents).size(), 199u);
  EXPECT_EQ(first_line(""), "");
}

}  // namespace
}  // namespace vigil::health
