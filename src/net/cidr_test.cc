#include "net/cidr.h"

#include <gtest/gtest.h>

namespace vigil::net {
namespace {

TEST(Cidr, ContainsItsHosts) {
  struct Case {
    const char* cidr;
    const char* address;
    bool inside;
  };
  const Case cases[] = {
      {.cidr = "10.0.0.0/8", .address = "10.255.1.2", .inside = true},
      {.cidr = "10.0.0.0/8", .address = "11.0.0.1", .inside = false},
      {.cidr = "10.1.2.3", .address = "10.1.2.3", .inside = true},
      {.cidr = "10.1.2.3", .address = "10.1.2.4", .inside = false},
      {.cidr = "192.168.4.0/22", .address = "192.168.7.255", .inside = true},
      {.cidr = "192.168.4.0/22", .address = "192.168.8.0", .inside = false},
      {.cidr = "0.0.0.0/0", .address = "203.0.113.9", .inside = true},
      {.cidr = "0.0.0.0/0", .address = "::1", .inside = false},
      {.cidr = "127.0.0.0/8", .address = "::ffff:127.0.0.1", .inside = true},
      {.cidr = "::1", .address = "::1", .inside = true},
      {.cidr = "::1", .address = "127.0.0.1", .inside = false},
      {.cidr = "fd00::/8", .address = "fd12:3456::1", .inside = true},
      {.cidr = "fd00::/9", .address = "fd80::1", .inside = false},
      {.cidr = "::/0", .address = "2001:db8::1", .inside = true},
      {.cidr = "::/0", .address = "10.0.0.1", .inside = false},
  };
  for (const Case& c : cases) {
    auto cidr = Cidr::parse(c.cidr);
    ASSERT_TRUE(cidr) << c.cidr << ": " << cidr.error().message;
    EXPECT_EQ(cidr->contains(*SocketAddress::from_ip(c.address, 1)), c.inside)
        << c.cidr << " " << c.address;
  }
}

TEST(Cidr, ClearsHostBits) {
  EXPECT_EQ(Cidr::parse("10.1.2.3/8")->to_string(), "10.0.0.0/8");
  EXPECT_EQ(Cidr::parse("fd00::1/64")->to_string(), "fd00::/64");
  EXPECT_EQ(Cidr::parse("::1")->to_string(), "::1/128");
}

TEST(Cidr, RejectsWithAReason) {
  for (const char* bad : {"", "10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/x", "10.0.0/8",
                          "host.example", "10.0.0.0/-1", "10.0.0.0/8/8"}) {
    auto cidr = Cidr::parse(bad);
    EXPECT_FALSE(cidr) << bad;
    if (!cidr) {
      EXPECT_NE(cidr.error().message.find(bad), std::string::npos) << bad;
    }
  }
}

}  // namespace
}  // namespace vigil::net
