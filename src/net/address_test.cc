#include "net/address.h"

#include <gtest/gtest.h>

namespace vigil::net {
namespace {

TEST(SplitHostPort, AcceptsTheForms) {
  struct Case {
    const char* text;
    const char* host;
    uint16_t port;
  };
  const Case cases[] = {
      {.text = "127.0.0.1:8404", .host = "127.0.0.1", .port = 8404},
      {.text = ":6443", .host = "", .port = 6443},
      {.text = "[::1]:0", .host = "::1", .port = 0},
      {.text = "master-01.example.local:6443", .host = "master-01.example.local", .port = 6443},
  };
  for (const auto& c : cases) {
    auto hp = split_host_port(c.text);
    ASSERT_TRUE(hp) << c.text << ": " << hp.error().message;
    EXPECT_EQ(hp->host, c.host);
    EXPECT_EQ(hp->port, c.port);
  }
}

TEST(SplitHostPort, RejectsWithAReason) {
  for (const char* bad :
       {"127.0.0.1", "::1:80", "[::1]80", "[::1]", "host:70000", "host:", "h:x"}) {
    EXPECT_FALSE(split_host_port(bad)) << bad;
  }
}

TEST(SocketAddress, PrintsAndClassifies) {
  auto v4 = SocketAddress::from_ip("127.0.0.2", 6443);
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->to_string(), "127.0.0.2:6443");
  EXPECT_TRUE(v4->is_loopback());
  auto v6 = SocketAddress::from_ip("::1", 80);
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->to_string(), "[::1]:80");
  EXPECT_TRUE(v6->is_loopback());
  EXPECT_TRUE(SocketAddress::from_ip("0.0.0.0", 1)->is_unspecified());
  EXPECT_FALSE(SocketAddress::from_ip("192.0.2.1", 1)->is_loopback());
  EXPECT_FALSE(SocketAddress::from_ip("master-01", 1));
  EXPECT_EQ(v4->ip_bytes().size(), 4u);
  EXPECT_EQ(v6->ip_bytes().size(), 16u);
}

TEST(Unbracketed, StripsOnlyAWholePair) {
  EXPECT_EQ(unbracketed("[fd00::1]"), "fd00::1");
  EXPECT_EQ(unbracketed("[::1]"), "::1");
  EXPECT_EQ(unbracketed("fd00::1"), "fd00::1");
  EXPECT_EQ(unbracketed("10.0.0.1"), "10.0.0.1");
  EXPECT_EQ(unbracketed("[::1]:6443"), "[::1]:6443");  // a port is split off first
  EXPECT_EQ(unbracketed("[::1"), "[::1");
  EXPECT_EQ(unbracketed("[]"), "[]");
  EXPECT_EQ(unbracketed(""), "");
}

TEST(Resolve, LiteralsNeedNoLookup) {
  auto r = resolve("::1", 9);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].port(), 9);
  auto local = resolve("localhost", 7);
  ASSERT_TRUE(local) << local.error().message;
  for (const auto& a : *local) EXPECT_TRUE(a.is_loopback()) << a.to_string();
  EXPECT_FALSE(resolve("no-such-host.invalid", 1));
}

TEST(SocketAddress, FromIpBytesRoundTrips) {
  for (const char* ip : {"192.0.2.7", "2001:db8::7"}) {
    const SocketAddress a = *SocketAddress::from_ip(ip, 4242);
    EXPECT_EQ(SocketAddress::from_ip_bytes(a.ip_bytes(), 4242), a) << ip;
  }
  EXPECT_EQ(SocketAddress::from_ip_bytes("abc", 1).size(), 0u);
}

}  // namespace
}  // namespace vigil::net
