// Every enum of the model round-trips through its one table; the predicates' table.
#include "model/spelling.h"

#include <gtest/gtest.h>

#include "model/admin_override.h"
#include "model/check_result.h"
#include "model/config.h"
#include "model/status.h"

namespace vigil::model {
namespace {

// Each value of 0..count-1 has a name, parse() gives it back, and no two values share a name.
template <typename E>
void expect_round_trip(int count) {
  ASSERT_EQ(spellings<E>().size(), static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    const E value = static_cast<E>(i);
    const std::string_view name = to_string(value);
    EXPECT_NE(name, "?") << i;
    EXPECT_EQ(parse<E>(name), value) << name;
  }
}

TEST(Spelling, EveryValueRoundTrips) {
  expect_round_trip<AdminState>(3);
  expect_round_trip<Algorithm>(3);
  expect_round_trip<MonitorType>(4);
  expect_round_trip<Replay>(3);
  expect_round_trip<ProxyProtocol>(3);
  expect_round_trip<OperatingStatus>(6);
  expect_round_trip<Outcome>(9);
}

TEST(Spelling, UnknownNamesAreRefused) {
  for (std::string_view name : {"", "roundrobin", "ROUND_ROBIN", "round_robin ", "leastconn"}) {
    EXPECT_EQ(parse<Algorithm>(name), std::nullopt) << name;
  }
  // Exact case: the YAML loader folds case itself, Octavia's API does not.
  for (std::string_view name : {"", "https", "TLS_HELLO", "TLS", "none", "PING", "UDP-CONNECT"}) {
    EXPECT_EQ(parse<MonitorType>(name), std::nullopt) << name;
  }
  EXPECT_EQ(parse<OperatingStatus>("online"), std::nullopt);
  EXPECT_EQ(parse<Outcome>("OK"), std::nullopt);
}

TEST(Spelling, NamesAsTheMessagesListThem) {
  EXPECT_EQ(name_list<Algorithm>(", ", " or ").view(),
            "round_robin, least_connections or source_ip");
  EXPECT_EQ(name_list<MonitorType>(", ", ", ").view(), "TCP, TLS-HELLO, HTTP, HTTPS");
  EXPECT_EQ(name_list<MonitorType>(", ", " or ", "none").view(),
            "TCP, TLS-HELLO, HTTP, HTTPS or none");
  EXPECT_EQ(name_list<MonitorType>(" | ", " | ", "none").view(),
            "TCP | TLS-HELLO | HTTP | HTTPS | none");
  static_assert(name_list<Algorithm>(" | ", " | ").view() ==
                "round_robin | least_connections | source_ip");
  constexpr Spelling<int> kOne[] = {{1, "one"}};
  EXPECT_EQ(join_names(std::span<const Spelling<int>>(kOne), ", ", " or ").view(), "one");
  EXPECT_EQ(join_names(std::span<const Spelling<int>>(kOne), ", ", " or ", "none").view(),
            "one or none");
}

TEST(Spelling, MonitorTypePredicates) {
  struct Case {
    MonitorType type;
    bool http;
    bool tls;
  };
  const Case cases[] = {
      {.type = MonitorType::kTcp, .http = false, .tls = false},
      {.type = MonitorType::kTlsHello, .http = false, .tls = true},
      {.type = MonitorType::kHttp, .http = true, .tls = false},
      {.type = MonitorType::kHttps, .http = true, .tls = true},
  };
  ASSERT_EQ(std::size(cases), spellings<MonitorType>().size());
  for (const Case& c : cases) {
    EXPECT_EQ(uses_http(c.type), c.http) << to_string(c.type);
    EXPECT_EQ(uses_tls(c.type), c.tls) << to_string(c.type);
  }
}

}  // namespace
}  // namespace vigil::model
