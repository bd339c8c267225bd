// The routes a stop and an upgrade add: /healthz during a graceful stop, POST /v1/upgrade.
#include <gtest/gtest.h>

#include "admin/routes.h"
#include "admin/sample_view_test.h"

namespace vigil::admin {
namespace {

struct StopRoutes : ::testing::Test {
  Response call(std::string_view method, std::string_view target, std::string_view token = "T") {
    const Request request{.method = method, .target = target, .x_auth_token = token};
    return route(request, RouteContext{.token = "T",
                                       .views = views,
                                       .now = testing::kNow,
                                       .stopping = &stopping,
                                       .upgrade = upgrade ? &upgrade : nullptr});
  }
  bool is_stopping = false;
  std::function<bool()> stopping = [this] { return is_stopping; };
  UpgradeFn upgrade;
  ViewsSource views = [] { return std::vector{testing::sample_view()}; };
};

TEST_F(StopRoutes, HealthzAnswers503WhileStopping) {
  EXPECT_EQ(call("GET", "/healthz", "").status, 200);
  is_stopping = true;
  const Response r = call("GET", "/healthz", "");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "draining for a stop\n");
}

TEST_F(StopRoutes, UpgradeIsAnAuthenticatedPost) {
  EXPECT_EQ(call("POST", "/v1/upgrade").status, 405) << "not offered";
  upgrade = [] { return Result<int>(4242); };
  EXPECT_EQ(call("POST", "/v1/upgrade", "").status, 401);
  EXPECT_EQ(call("GET", "/v1/upgrade").status, 405);
  const Response ok = call("POST", "/v1/upgrade");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "{\"upgrading\": true, \"pid\": 4242}");
  upgrade = [] { return Result<int>(fail("vigil is stopping")); };
  EXPECT_EQ(call("POST", "/v1/upgrade").status, 409);
}

}  // namespace
}  // namespace vigil::admin
