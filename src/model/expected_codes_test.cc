#include "model/expected_codes.h"

#include <gtest/gtest.h>

namespace vigil::model {
namespace {

TEST(ExpectedCodes, DefaultsTo200) {
  ExpectedCodes codes;
  EXPECT_TRUE(codes.contains(200));
  EXPECT_FALSE(codes.contains(201));
  EXPECT_EQ(codes.to_string(), "200");
}

TEST(ExpectedCodes, ParsesListsAndRanges) {
  struct Case {
    const char* text;
    std::vector<int> in;
    std::vector<int> out;
    const char* canonical;
  };
  const Case cases[] = {
      {.text = "200", .in = {200}, .out = {199, 201, 500}, .canonical = "200"},
      {.text = "200,202", .in = {200, 202}, .out = {201, 203}, .canonical = "200,202"},
      {.text = "200-204", .in = {200, 202, 204}, .out = {199, 205}, .canonical = "200-204"},
      {.text = "200, 301-302",
       .in = {200, 301, 302},
       .out = {300, 303},
       .canonical = "200,301-302"},
  };
  for (const auto& c : cases) {
    auto codes = ExpectedCodes::parse(c.text);
    ASSERT_TRUE(codes) << c.text << ": " << codes.error().message;
    for (int code : c.in) EXPECT_TRUE(codes->contains(code)) << c.text << " " << code;
    for (int code : c.out) EXPECT_FALSE(codes->contains(code)) << c.text << " " << code;
    EXPECT_EQ(codes->to_string(), c.canonical);
  }
}

TEST(ExpectedCodes, RejectsGarbageWithAReason) {
  for (const char* bad : {"", "abc", "200-", "-200", "204-200", "99", "600", "200,,202", "2OO"}) {
    auto codes = ExpectedCodes::parse(bad);
    ASSERT_FALSE(codes) << "accepted \"" << bad << "\"";
    EXPECT_NE(codes.error().message.find("expected_codes"), std::string::npos);
  }
}

}  // namespace
}  // namespace vigil::model
