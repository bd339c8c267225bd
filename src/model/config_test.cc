// same_checks: every setting of a monitor counts, its name and place in the file do not.
#include "model/config.h"

#include <gtest/gtest.h>

#include <functional>

namespace vigil::model {
namespace {

struct Change {
  const char* field;
  std::function<void(HealthMonitor&)> apply;
};

ExpectedCodes codes(std::string_view text) { return ExpectedCodes::parse(text).value(); }

TEST(SameChecks, EverySettingCounts) {
  const Change changes[] = {
      {.field = "type", .apply = [](HealthMonitor& m) { m.type = MonitorType::kHttps; }},
      {.field = "path", .apply = [](HealthMonitor& m) { m.path = "/livez"; }},
      {.field = "http_method", .apply = [](HealthMonitor& m) { m.http_method = "HEAD"; }},
      {.field = "host", .apply = [](HealthMonitor& m) { m.host = "api.example"; }},
      {.field = "expected_codes",
       .apply = [](HealthMonitor& m) { m.expected_codes = codes("200-204"); }},
      {.field = "interval", .apply = [](HealthMonitor& m) { m.interval = 6s; }},
      {.field = "fast_interval", .apply = [](HealthMonitor& m) { m.fast_interval = 2s; }},
      {.field = "timeout", .apply = [](HealthMonitor& m) { m.timeout = 3s; }},
      {.field = "healthy_threshold", .apply = [](HealthMonitor& m) { m.healthy_threshold = 1; }},
      {.field = "unhealthy_threshold",
       .apply = [](HealthMonitor& m) { m.unhealthy_threshold = 1; }},
      {.field = "tls.verify", .apply = [](HealthMonitor& m) { m.tls.verify = true; }},
      {.field = "tls.ca_file", .apply = [](HealthMonitor& m) { m.tls.ca_file = "ca.pem"; }},
      {.field = "tls.server_name", .apply = [](HealthMonitor& m) { m.tls.server_name = "api"; }},
      {.field = "tls.client_cert", .apply = [](HealthMonitor& m) { m.tls.client_cert = "c.pem"; }},
      {.field = "tls.client_key", .apply = [](HealthMonitor& m) { m.tls.client_key = "k.pem"; }},
      {.field = "bearer_token_file", .apply = [](HealthMonitor& m) { m.bearer_token_file = "t"; }},
      {.field = "reuse_connection", .apply = [](HealthMonitor& m) { m.reuse_connection = false; }},
      {.field = "send_proxy", .apply = [](HealthMonitor& m) { m.send_proxy = true; }},
  };
  const HealthMonitor before;
  for (const Change& c : changes) {
    HealthMonitor after = before;
    c.apply(after);
    EXPECT_FALSE(same_checks(before, after)) << c.field;
    EXPECT_NE(before, after) << c.field;
  }
  EXPECT_TRUE(same_checks(before, HealthMonitor{}));
}

// A reload in which the monitor only moved down its file, or took another id, keeps its members'
// health: neither says anything about how the members are checked.
TEST(SameChecks, NameAndPlaceDoNotCount) {
  const HealthMonitor before{.id = "a", .where = {.line = 10}};
  HealthMonitor after = before;
  after.where.line = 12;
  after.id = "b";
  EXPECT_TRUE(same_checks(before, after));
  EXPECT_NE(before, after);  // whole values still differ
}

// "200-200" and "200" parse to the same codes, so they check the same way.
TEST(SameChecks, ExpectedCodesCompareAsParsed) {
  HealthMonitor a;
  HealthMonitor b;
  a.expected_codes = codes("200-200, 204");
  b.expected_codes = codes("200,204");
  EXPECT_TRUE(same_checks(a, b));
}

}  // namespace
}  // namespace vigil::model
