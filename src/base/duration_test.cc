#include "base/duration.h"

#include <gtest/gtest.h>

#include <string>

namespace vigil {
namespace {

using namespace std::chrono_literals;

struct ParseCase {
  const char* input;
  Duration expected;
};

TEST(ParseDuration, AcceptsEveryUnitAndCompoundForms) {
  const ParseCase cases[] = {
      {.input = "500ms", .expected = 500ms}, {.input = "5s", .expected = 5s},
      {.input = "1h", .expected = 1h},       {.input = "1m30s", .expected = 90s},
      {.input = "1.5s", .expected = 1500ms}, {.input = "250us", .expected = 250us},
      {.input = "10ns", .expected = 10ns},   {.input = "0s", .expected = 0s},
  };
  for (const auto& c : cases) {
    auto got = parse_duration(c.input);
    ASSERT_TRUE(got.has_value()) << c.input << ": " << got.error().message;
    EXPECT_EQ(*got, c.expected) << c.input;
  }
}

TEST(ParseDuration, RejectsWhatCouldBeMisread) {
  for (const char* bad : {"", "5", "s", "5 s", "5sec", "-1s", "1x", "ms5", "1e30h"}) {
    auto got = parse_duration(bad);
    EXPECT_FALSE(got.has_value()) << "accepted \"" << bad << "\"";
  }
  EXPECT_NE(parse_duration("5").error().message.find("unit is required"), std::string::npos);
}

TEST(ParseDuration, ASumOfPartsThatWouldOverflowIsTooLarge) {
  // Each part alone is allowed (just under 1e18 ns); ten of them would wrap a 64-bit count of
  // nanoseconds around to a small or negative value.
  std::string many;
  for (int i = 0; i < 10; ++i) many += "277777h";
  ASSERT_TRUE(parse_duration("277777h").has_value());
  const auto got = parse_duration(many);
  ASSERT_FALSE(got.has_value()) << format_duration(*got);
  EXPECT_NE(got.error().message.find("too large"), std::string::npos);
  EXPECT_FALSE(parse_duration("277777h277777h277777h277777h").has_value());
}

TEST(FormatDuration, PrintsTheShortestExactForm) {
  EXPECT_EQ(format_duration(0s), "0s");
  EXPECT_EQ(format_duration(250ms), "250ms");
  EXPECT_EQ(format_duration(1500ms), "1.5s");
  EXPECT_EQ(format_duration(90s), "1m30s");
  EXPECT_EQ(format_duration(1h), "1h");
  EXPECT_EQ(format_duration(30us), "30us");
}

TEST(ShortAge, TwoUnitsAtMost) {
  EXPECT_EQ(short_age(-5), "0s");
  EXPECT_EQ(short_age(12), "12s");
  EXPECT_EQ(short_age(60), "1m0s");
  EXPECT_EQ(short_age(184), "3m4s");
  EXPECT_EQ(short_age(7500), "2h5m");
  EXPECT_EQ(short_age(273600), "3d4h");
}

}  // namespace
}  // namespace vigil
