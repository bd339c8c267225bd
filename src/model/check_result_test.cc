#include "model/check_result.h"

#include <gtest/gtest.h>

namespace vigil::model {
namespace {

using namespace std::chrono_literals;

TEST(Describe, OneLineReasons) {
  struct Case {
    CheckResult result;
    const char* expected;
  };
  const Case cases[] = {
      {.result = {.outcome = Outcome::kOk, .http_code = 200}, .expected = "HTTP 200"},
      {.result = {.outcome = Outcome::kOk}, .expected = "ok"},
      {.result = {.outcome = Outcome::kRefused, .detail = "Connection refused"},
       .expected = "connection refused"},
      {.result = {.outcome = Outcome::kTimeout, .detail = "no answer within 2s"},
       .expected = "timeout: no answer within 2s"},
      {.result = {.outcome = Outcome::kBadStatus,
                  .http_code = 500,
                  .failed_checks = {"[-]etcd failed", "[-]shutdown failed"}},
       .expected = "HTTP 500 \"[-]etcd failed, [-]shutdown failed\""},
      {.result = {.outcome = Outcome::kTlsFailed, .detail = "wrong version number"},
       .expected = "TLS handshake failed: wrong version number"},
  };
  for (const auto& c : cases) EXPECT_EQ(describe(c.result), c.expected);
}

}  // namespace
}  // namespace vigil::model
