// The two tokens through route(): what the read-only token may do per route, what the write
// token may, and the pure pieces (access_of, cookies, the cross-site guard, token files).
#include "admin/auth.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

#include "admin/cookie.h"
#include "admin/fake_daemon_test.h"
#include "admin/routes.h"
#include "admin/same_origin.h"
#include "admin/token_files.h"

namespace vigil::admin {
namespace {

class ReadTokenTest : public ::testing::Test {
 protected:
  Response call(std::string_view method, std::string_view target, std::string_view token,
                std::string_view body = "") {
    const Request request{.method = method, .target = target, .x_auth_token = token, .body = body};
    return route(
        request,
        RouteContext{.token = "W", .read_token = "R", .daemon = daemon_, .now = testing::kNow});
  }
  std::string faultstring(const Response& r) {
    return std::string(boost::json::parse(r.body).at("faultstring").as_string());
  }

  testing::FakeDaemon daemon_;
};

TEST_F(ReadTokenTest, ReadsEveryGet) {
  const auto lb = testing::sample_view();
  for (const std::string& path :
       {std::string("/metrics"), std::string("/v1/status"), std::string("/"),
        std::string("/v2/lbaas/loadbalancers"), "/v2.0/lbaas/pools/" + lb.pools[0].id + "/members",
        std::string("/v1/pools/masters/members/master-01/admin")}) {
    EXPECT_EQ(call("GET", path, "R").status, 200) << path;
    EXPECT_EQ(call("GET", path, "W").status, 200) << path;
    EXPECT_EQ(call("GET", path, "X").status, 401) << path;
  }
}

TEST_F(ReadTokenTest, IsRefusedWith403ForEveryWrite) {
  const struct {
    std::string_view method, target, body;
  } writes[] = {
      {"PUT", "/v1/pools/masters/members/master-01/admin", R"({"state": "drain"})"},
      {"POST", "/v1/reload", ""},
      {"POST", "/v1/upgrade", ""},
      {"POST", "/v2/lbaas/loadbalancers", "{}"},
      {"DELETE", "/v2/lbaas/pools/masters", ""},
      {"POST", "/v1/sessions/kill", R"({"member": "master-01"})"},
  };
  for (const auto& w : writes) {
    const Response r = call(w.method, w.target, "R", w.body);
    EXPECT_EQ(r.status, 403) << w.method << " " << w.target;
    EXPECT_EQ(faultstring(r),
              "Forbidden: the read-only token (admin.read_token_file) cannot change anything; "
              "use the token of admin.token_file");
  }
  EXPECT_EQ(daemon_.override_calls, 0);
  // The write token gets through to the route itself.
  EXPECT_EQ(
      call("PUT", "/v1/pools/masters/members/master-01/admin", "W", R"({"state": "drain"})").status,
      200);
  EXPECT_EQ(daemon_.override_calls, 1);
}

TEST_F(ReadTokenTest, AReadTokenAloneServesReads) {
  const Request get{.method = "GET", .target = "/v1/status", .x_auth_token = "R"};
  const RouteContext ctx{.read_token = "R", .daemon = daemon_, .now = testing::kNow};
  EXPECT_EQ(route(get, ctx).status, 200);
  const Request put{
      .method = "PUT", .target = "/v1/pools/masters/members/master-01/admin", .x_auth_token = "R"};
  EXPECT_EQ(route(put, ctx).status, 403);
}

TEST(Auth, AccessOfEitherToken) {
  EXPECT_EQ(access_of("W", "R", "W"), Access::kWrite);
  EXPECT_EQ(access_of("W", "R", "R"), Access::kRead);
  EXPECT_EQ(access_of("W", "R", "X"), Access::kNone);
  EXPECT_EQ(access_of("W", "", ""), Access::kNone) << "an unset read token matches nothing";
  EXPECT_EQ(access_of("", "", ""), Access::kNone);
  EXPECT_EQ(required_access("GET"), Access::kRead);
  EXPECT_EQ(required_access("HEAD"), Access::kRead);
  for (const char* m : {"POST", "PUT", "DELETE", "PATCH"}) {
    EXPECT_EQ(required_access(m), Access::kWrite) << m;
  }
}

TEST(Cookie, FindsTheSessionCookieAmongOthers) {
  EXPECT_EQ(cookie_value("a=1; vigil_session=abc; b=2", kSessionCookie), "abc");
  EXPECT_EQ(cookie_value("vigil_session=\"abc\"", kSessionCookie), "abc");
  EXPECT_EQ(cookie_value("xvigil_session=abc", kSessionCookie), "");
  EXPECT_EQ(cookie_value("", kSessionCookie), "");
  EXPECT_EQ(cookie_value(";;=;vigil_session", kSessionCookie), "");
  EXPECT_EQ(session_set_cookie("abc", 60),
            "vigil_session=abc; HttpOnly; SameSite=Strict; Path=/; Max-Age=60");
}

TEST(SameOrigin, RefusesOtherSitesAndPassesOurOwn) {
  EXPECT_EQ(cross_site_refusal({.host = "127.0.0.1:8404"}), std::nullopt);
  EXPECT_EQ(cross_site_refusal({.host = "127.0.0.1:8404",
                                .origin = "http://127.0.0.1:8404",
                                .sec_fetch_site = "same-origin"}),
            std::nullopt);
  EXPECT_EQ(cross_site_refusal({.host = "127.0.0.1:8404", .sec_fetch_site = "cross-site"}),
            "cross-site request refused (Sec-Fetch-Site: cross-site)");
  EXPECT_TRUE(cross_site_refusal({.host = "127.0.0.1:8404", .sec_fetch_site = "same-site"}));
  EXPECT_EQ(cross_site_refusal({.host = "127.0.0.1:8404", .origin = "http://evil.example"}),
            "cross-site request refused (Origin http://evil.example is not this server, "
            "127.0.0.1:8404)");
  EXPECT_TRUE(cross_site_refusal({.host = "127.0.0.1:8404", .origin = "null"}));
  EXPECT_TRUE(cross_site_refusal({.origin = "http://127.0.0.1:8404"}));
}

class TokenFilesTest : public ::testing::Test {
 protected:
  std::string file(const std::string& name, const std::string& text, mode_t mode) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
    return path;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_ = [] {
    auto d =
        std::filesystem::temp_directory_path() / ("vigil-token-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
};

TEST_F(TokenFilesTest, ReadsBothAndRefusesTheSameTokenTwice) {
  model::Admin admin{.token_file = file("w", "write-token\n", 0600),
                     .read_token_file = file("r", "read-token\n", 0600)};
  auto tokens = read_admin_tokens(admin, false);
  ASSERT_TRUE(tokens) << tokens.error().message;
  EXPECT_EQ(*tokens, (AdminTokens{.write = "write-token", .read = "read-token"}));
  admin.read_token_file = file("same", "write-token\n", 0600);
  auto same = read_admin_tokens(admin, false);
  ASSERT_FALSE(same);
  EXPECT_NE(same.error().message.find("same token"), std::string::npos);
  admin.read_token_file = (dir_ / "missing").string();
  auto missing = read_admin_tokens(admin, false);
  ASSERT_FALSE(missing);
  EXPECT_TRUE(missing.error().message.starts_with("admin.read_token_file: "))
      << missing.error().message;
}

TEST_F(TokenFilesTest, LoosePermissionsSayWhoCanRead) {
  EXPECT_EQ(loose_permissions(file("a", "t", 0600)), std::nullopt);
  EXPECT_EQ(loose_permissions(file("b", "t", 0644)), "has mode 0644: group and others can read it");
  EXPECT_EQ(loose_permissions(file("c", "t", 0640)), "has mode 0640: its group can read it");
  EXPECT_EQ(loose_permissions((dir_ / "none").string()), std::nullopt);
}

}  // namespace
}  // namespace vigil::admin
