// Test-only: runs one probe to completion on the test's io_context, bounded in real time, for
// the probe tests (probe_test, proxy_probe_test, tcp_checks_test).
#pragma once

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <optional>

#include "health/probe.h"

namespace vigil::testing {

// The probe's result; a test failure and a kTimeout result when none came within 10 s.
inline model::CheckResult run_probe(boost::asio::io_context& io, health::Prober& prober,
                                    const health::ProbeTarget& target) {
  std::optional<model::CheckResult> result;
  prober.start(target, [&](model::CheckResult r) {
    result = std::move(r);
    io.stop();
  });
  io.restart();
  io.run_for(std::chrono::seconds(10));
  EXPECT_TRUE(result.has_value()) << "no result within 10s";
  return result.value_or(model::CheckResult{.outcome = model::Outcome::kTimeout, .detail = "test"});
}

}  // namespace vigil::testing
