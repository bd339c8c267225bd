// Octavia's names: every algorithm and monitor type of the model has one, and reads back.
#include "admin/octavia/names.h"

#include <gtest/gtest.h>

namespace vigil::admin {
namespace {

TEST(OctaviaNames, EveryModelValueHasOneAndReadsBack) {
  ASSERT_EQ(std::size(kOctaviaAlgorithms), model::spellings<model::Algorithm>().size());
  for (const auto& [value, name] : model::kAlgorithmNames) {
    EXPECT_NE(octavia_name(value), "?") << name;
    EXPECT_EQ(octavia_algorithm(octavia_name(value)), value) << name;
  }
  ASSERT_EQ(std::size(kOctaviaMonitorTypes), model::spellings<model::MonitorType>().size());
  for (const auto& [value, name] : model::kMonitorTypeNames) {
    EXPECT_NE(octavia_name(value), "?") << name;
    EXPECT_EQ(octavia_monitor_type(octavia_name(value)), value) << name;
  }
}

TEST(OctaviaNames, AsOctaviaSpellsThem) {
  EXPECT_EQ(octavia_name(model::Algorithm::kLeastConnections), "LEAST_CONNECTIONS");
  EXPECT_EQ(octavia_name(model::MonitorType::kTlsHello), "TLS-HELLO");
  EXPECT_EQ(octavia_name(model::OperatingStatus::kNoMonitor), "NO_MONITOR");
  // vigil's YAML names are not Octavia's, and Octavia compares exactly.
  EXPECT_EQ(octavia_algorithm("round_robin"), std::nullopt);
  EXPECT_EQ(octavia_monitor_type("https"), std::nullopt);
  EXPECT_EQ(octavia_monitor_type("PING"), std::nullopt);
}

}  // namespace
}  // namespace vigil::admin
