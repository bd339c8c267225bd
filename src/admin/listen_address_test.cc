#include "admin/listen_address.h"

#include <gtest/gtest.h>

#include <boost/asio/local/stream_protocol.hpp>

namespace vigil::admin {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

TEST(ListenAddress, ParsesOrSaysWhy) {
  EXPECT_EQ(parse_listen("[::1]:8404")->port(), 8404);
  EXPECT_EQ(parse_listen("localhost:0")->address().to_string(), "127.0.0.1");
  EXPECT_NE(parse_listen("8404").error().message.find("no port"), std::string::npos);
  EXPECT_NE(parse_listen("::1:8404").error().message.find("brackets"), std::string::npos);
}

TEST(ListenAddress, SignInSourcesCountAnIpv6HostsSlash64) {
  struct Case {
    const char* peer;
    const char* expected;
  };
  const Case cases[] = {
      {.peer = "192.0.2.7", .expected = "192.0.2.7"},
      {.peer = "::ffff:192.0.2.7", .expected = "192.0.2.7"},
      {.peer = "2001:db8:1:2:3:4:5:6", .expected = "2001:db8:1:2::/64"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(sign_in_source(asio::ip::make_address(c.peer)), c.expected) << c.peer;
  }
}

TEST(ListenAddress, IpOfAGenericEndpoint) {
  const tcp::endpoint v6(asio::ip::make_address("2001:db8::1"), 8404);
  EXPECT_EQ(ip_of(asio::generic::stream_protocol::endpoint(v6)), v6.address());
  const tcp::endpoint v4(asio::ip::make_address("192.0.2.1"), 1);
  EXPECT_EQ(ip_of(asio::generic::stream_protocol::endpoint(v4)), v4.address());
  // A Unix socket's short path fits the size of an IP endpoint, and is still none.
  const asio::local::stream_protocol::endpoint unix_endpoint("/s");
  EXPECT_EQ(ip_of(asio::generic::stream_protocol::endpoint(unix_endpoint)), std::nullopt);
}

}  // namespace
}  // namespace vigil::admin
