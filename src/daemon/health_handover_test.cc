// The health state an upgrade hands over: what goes in comes out, through a memfd too, and what
// does not parse is refused whole.
#include "daemon/health_handover.h"

#include <gtest/gtest.h>

namespace vigil::daemon {
namespace {

using namespace std::chrono_literals;

std::vector<CarriedHealth> sample() {
  const model::WallTime t0{std::chrono::seconds(1'800'000'000)};
  return {{.member_id = "8f1c-master-01",
           .checked = "HTTPS 10.0.0.11:6443 /readyz",
           .health = model::Health::kDown,
           .successes = 1,
           .failures = 0,
           .state_since = t0 - 42s,
           .health_since = t0 - 30s,
           .last_check_at = t0 - 1500ms,
           .last_check = model::CheckResult{.outcome = model::Outcome::kBadStatus,
                                            .http_code = 500,
                                            .duration = 12ms,
                                            .detail = "[-]etcd failed\n\"quoted\"",
                                            .failed_checks = {"[-]etcd failed"},
                                            .reused_connection = true}},
          {.member_id = "8f1c-master-02",
           .checked = "TCP 10.0.0.12:6443 /readyz",
           .health = model::Health::kUp,
           .successes = 7,
           .state_since = t0 - 1h,
           .last_check_at = t0},
          {.member_id = "unchecked", .checked = "TCP x:1 /", .health = model::Health::kUnchecked}};
}

TEST(HealthHandover, RoundTrip) {
  const auto decoded = decode_health(encode_health(sample()));
  ASSERT_TRUE(decoded) << decoded.error().message;
  ASSERT_EQ(decoded->size(), 3u);
  EXPECT_EQ((*decoded)[0].last_check->detail, sample()[0].last_check->detail);
  EXPECT_EQ((*decoded)[0].last_check->duration, 12ms);
  const CarriedHealth& down = (*decoded)[0];
  EXPECT_EQ(down.member_id, "8f1c-master-01");
  EXPECT_EQ(down.health, model::Health::kDown);
  EXPECT_EQ(down.successes, 1);
  EXPECT_EQ(down.state_since, sample()[0].state_since);
  EXPECT_EQ(down.health_since, sample()[0].health_since);
  EXPECT_EQ(down.last_check_at, sample()[0].last_check_at);
  EXPECT_EQ(down.last_check->outcome, model::Outcome::kBadStatus);
  EXPECT_EQ(down.last_check->http_code, 500);
  EXPECT_EQ(down.last_check->failed_checks, std::vector<std::string>{"[-]etcd failed"});
  EXPECT_TRUE(down.last_check->reused_connection);
  EXPECT_EQ((*decoded)[1].failures, 0);
  EXPECT_EQ((*decoded)[1].successes, 7);
  EXPECT_FALSE((*decoded)[1].last_check.has_value());
  EXPECT_EQ((*decoded)[2].health, model::Health::kUnchecked);
  // Every field: what comes out encodes as what went in.
  EXPECT_EQ(encode_health(*decoded), encode_health(sample()));
  EXPECT_TRUE(decode_health(encode_health({})).value().empty());
}

TEST(HealthHandover, AnOlderVigilsStateHasItsHealthSinceItsStatusChanged) {
  std::string text = encode_health(sample());
  const std::string field = "\"health_since_ns\":";
  for (size_t at = text.find(field); at != std::string::npos; at = text.find(field)) {
    text.erase(at, text.find(',', at) + 1 - at);
  }
  const auto decoded = decode_health(text);
  ASSERT_TRUE(decoded) << decoded.error().message << "\n" << text;
  EXPECT_EQ((*decoded)[0].health_since, sample()[0].state_since);
}

TEST(HealthHandover, ThroughAMemfd) {
  const std::string text = encode_health(sample());
  auto fd = health_memfd(text);
  ASSERT_TRUE(fd) << fd.error().message;
  EXPECT_EQ(read_memfd(fd->get()).value(), text);
  EXPECT_EQ(read_memfd(fd->get()).value(), text) << "read from the start, whatever the offset";
}

TEST(HealthHandover, WhatDoesNotParseIsRefusedWhole) {
  std::string good = encode_health(sample());
  auto replaced = [&](std::string_view from, std::string_view to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  struct Case {
    const char* description;
    std::string text;
    const char* says;
  };
  const Case cases[] = {
      {.description = "not JSON", .text = "{\"format\":", .says = "not JSON"},
      {.description = "another format",
       .text = replaced("\"format\":1", "\"format\":2"),
       .says = "format 2"},
      {.description = "an unknown health",
       .text = replaced("\"down\"", "\"sideways\""),
       .says = "unknown health"},
      {.description = "an unknown outcome",
       .text = replaced("\"bad_status\"", "\"odd\""),
       .says = "unknown outcome"},
      {.description = "a missing field",
       .text = replaced("\"successes\":7,", ""),
       .says = "malformed"},
      {.description = "a wrong type",
       .text = replaced("\"failures\":0", "\"failures\":\"0\""),
       .says = "malformed"},
      {.description = "not an object", .text = "[]", .says = "malformed"},
  };
  for (const Case& c : cases) {
    const auto decoded = decode_health(c.text);
    ASSERT_FALSE(decoded) << c.description;
    EXPECT_NE(decoded.error().message.find(c.says), std::string::npos)
        << c.description << ": " << decoded.error().message;
  }
}

TEST(HealthHandover, TheCheckedTargetNamesWhatIsChecked) {
  model::HealthMonitor https{{.type = model::MonitorType::kHttps}};
  model::Member m{.name = "master-01", .address = "10.0.0.11", .port = 6443};
  EXPECT_EQ(checked_target(https, m), "HTTPS 10.0.0.11:6443 /readyz");
  m.monitor_address = "10.0.1.11";
  m.monitor_port = 9443;
  EXPECT_EQ(checked_target(https, m), "HTTPS 10.0.1.11:9443 /readyz");
}

}  // namespace
}  // namespace vigil::daemon
