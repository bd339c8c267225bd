// The routes a stop and an upgrade add: /healthz during a graceful stop, POST /v1/upgrade.
#include <gtest/gtest.h>

#include "admin/fake_daemon_test.h"
#include "admin/routes.h"

namespace vigil::admin {
namespace {

struct StopRoutes : ::testing::Test {
  Response call(std::string_view method, std::string_view target, std::string_view token = "T") {
    const Request request{.method = method, .target = target, .x_auth_token = token};
    return route(request, RouteContext{.token = "T", .daemon = daemon, .now = testing::kNow});
  }
  testing::FakeDaemon daemon;
};

TEST_F(StopRoutes, HealthzAnswers503WhileStopping) {
  EXPECT_EQ(call("GET", "/healthz", "").status, 200);
  daemon.is_stopping = true;
  const Response r = call("GET", "/healthz", "");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "draining for a stop\n");
}

TEST_F(StopRoutes, UpgradeIsAnAuthenticatedPost) {
  daemon.upgrade_result = 4242;
  EXPECT_EQ(call("POST", "/v1/upgrade", "").status, 401);
  EXPECT_EQ(call("GET", "/v1/upgrade").status, 405);
  const Response ok = call("POST", "/v1/upgrade");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "{\"upgrading\": true, \"pid\": 4242}");
  daemon.upgrade_result = fail("vigil is stopping");
  EXPECT_EQ(call("POST", "/v1/upgrade").status, 409);
}

}  // namespace
}  // namespace vigil::admin
