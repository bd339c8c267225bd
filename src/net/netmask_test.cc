#include "net/netmask.h"

#include <gtest/gtest.h>

namespace vigil::net {
namespace {

TEST(Netmask, ReadsPrefixLengths) {
  struct Case {
    const char* text;
    bool ok;
    Netmask mask;
  };
  const Case cases[] = {
      {.text = "255.255.255.255", .ok = true, .mask = {.v6 = false, .prefix = 32}},
      {.text = "255.255.255.0", .ok = true, .mask = {.v6 = false, .prefix = 24}},
      {.text = "255.255.240.0", .ok = true, .mask = {.v6 = false, .prefix = 20}},
      {.text = "0.0.0.0", .ok = true, .mask = {.v6 = false, .prefix = 0}},
      {.text = "ffff:ffff:ffff:ffff::", .ok = true, .mask = {.v6 = true, .prefix = 64}},
      {.text = "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
       .ok = true,
       .mask = {.v6 = true, .prefix = 128}},
      {.text = "255.0.255.0", .ok = false},
      {.text = "255.255.255.1", .ok = false},
      {.text = "24", .ok = false},
      {.text = "", .ok = false},
  };
  for (const Case& c : cases) {
    auto got = parse_netmask(c.text);
    ASSERT_EQ(got.has_value(), c.ok) << c.text;
    if (c.ok) {
      EXPECT_EQ(*got, c.mask) << c.text;
    }
  }
}

}  // namespace
}  // namespace vigil::net
