#include "net/cidr_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vigil::net {
namespace {

CidrTable table_of(std::vector<std::string> texts) {
  std::vector<Cidr> cidrs;
  for (const std::string& t : texts) cidrs.push_back(*Cidr::parse(t));
  return CidrTable(cidrs);
}

bool has(const CidrTable& t, const char* ip) {
  return t.contains(*SocketAddress::from_ip(ip, 6443));
}

TEST(CidrTable, AgreesWithEachNetwork) {
  struct Case {
    std::vector<std::string> networks;
    const char* address;
    bool inside;
  };
  const Case cases[] = {
      {.networks = {}, .address = "127.0.0.1", .inside = false},
      {.networks = {"127.0.0.1/32"}, .address = "127.0.0.1", .inside = true},
      {.networks = {"127.0.0.1/32"}, .address = "127.0.0.2", .inside = false},
      {.networks = {"127.0.0.1/32"}, .address = "::ffff:127.0.0.1", .inside = true},
      {.networks = {"127.0.0.1/32"}, .address = "::1", .inside = false},
      {.networks = {"10.0.0.0/8", "192.168.4.0/22"}, .address = "192.168.7.255", .inside = true},
      {.networks = {"10.0.0.0/8", "192.168.4.0/22"}, .address = "192.168.8.0", .inside = false},
      {.networks = {"10.0.0.0/8", "192.168.4.0/22"}, .address = "10.200.0.1", .inside = true},
      {.networks = {"0.0.0.0/0"}, .address = "203.0.113.9", .inside = true},
      {.networks = {"0.0.0.0/0"}, .address = "2001:db8::1", .inside = false},
      {.networks = {"::/0"}, .address = "2001:db8::1", .inside = true},
      {.networks = {"::/0"}, .address = "10.0.0.1", .inside = false},
      {.networks = {"::1/128"}, .address = "::1", .inside = true},
      {.networks = {"::1/128"}, .address = "127.0.0.1", .inside = false},
      {.networks = {"fd00::/9", "2001:db8::/32"}, .address = "fd80::1", .inside = false},
      {.networks = {"fd00::/9", "2001:db8::/32"}, .address = "fd7f::1", .inside = true},
      {.networks = {"fd00::/9", "2001:db8::/32"}, .address = "2001:db8:ffff::1", .inside = true},
      {.networks = {"2001:db8::/65"}, .address = "2001:db8::7fff:0:0:1", .inside = true},
      {.networks = {"2001:db8::/65"}, .address = "2001:db8::8000:0:0:1", .inside = false},
      // A mapped-address network written as IPv6 matches the mapped form too.
      {.networks = {"::ffff:0:0/96"}, .address = "127.0.0.1", .inside = false},
      {.networks = {"::ffff:0:0/96"}, .address = "::ffff:127.0.0.1", .inside = true},
  };
  for (const Case& c : cases) {
    const CidrTable t = table_of(c.networks);
    EXPECT_EQ(has(t, c.address), c.inside) << c.address << " in " << c.networks.size();
    // The table answers as the networks one by one do.
    bool any = false;
    for (const std::string& n : c.networks) {
      any = any || Cidr::parse(n)->contains(*SocketAddress::from_ip(c.address, 1));
    }
    EXPECT_EQ(any, c.inside) << c.address;
  }
}

TEST(CidrTable, ManyNetworksOfOneLength) {
  std::vector<std::string> networks;
  for (int i = 0; i < 256; i += 2) networks.push_back("10.0." + std::to_string(i) + ".0/24");
  const CidrTable t = table_of(networks);
  EXPECT_TRUE(has(t, "10.0.0.5"));
  EXPECT_FALSE(has(t, "10.0.1.5"));
  EXPECT_TRUE(has(t, "10.0.254.1"));
  EXPECT_FALSE(has(t, "10.0.255.1"));
}

TEST(CidrTable, RepeatsAndOverlapsAreHarmless) {
  const CidrTable t = table_of({"10.0.0.0/8", "10.1.0.0/16", "10.0.0.0/8", "10.9.9.9/8"});
  EXPECT_TRUE(has(t, "10.1.2.3"));
  EXPECT_TRUE(has(t, "10.250.0.1"));
  EXPECT_FALSE(has(t, "11.0.0.1"));
  EXPECT_EQ(t, table_of({"10.0.0.0/8", "10.1.0.0/16"}));
}

TEST(CidrTable, EmptyIsEmpty) {
  EXPECT_TRUE(CidrTable().empty());
  EXPECT_FALSE(table_of({"::1"}).empty());
}

}  // namespace
}  // namespace vigil::net
