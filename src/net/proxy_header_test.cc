#include "net/proxy_header.h"

#include <gtest/gtest.h>

#include <string>

namespace vigil::net {
namespace {

using Status = ProxyHeader::Status;
using namespace std::string_literals;

SocketAddress ip(const char* text, uint16_t port) { return *SocketAddress::from_ip(text, port); }

std::string encode(ProxyVersion v, const SocketAddress* src, const SocketAddress* dst) {
  std::array<char, kMaxProxyHeaderOut> out{};
  const size_t n = encode_proxy_header(v, src, dst, out);
  return {out.data(), n};
}

const std::string kSig = "\r\n\r\n\0\r\nQUIT\n"s;

TEST(EncodeProxyHeader, WritesV1ForEachFamily) {
  struct Case {
    const char* description;
    SocketAddress src;
    SocketAddress dst;
    std::string expected;
  };
  const Case cases[] = {
      {.description = "IPv4",
       .src = ip("192.0.2.7", 51000),
       .dst = ip("10.0.0.1", 443),
       .expected = "PROXY TCP4 192.0.2.7 10.0.0.1 51000 443\r\n"},
      {.description = "IPv6",
       .src = ip("2001:db8::7", 1),
       .dst = ip("::1", 65535),
       .expected = "PROXY TCP6 2001:db8::7 ::1 1 65535\r\n"},
      {.description = "IPv4-mapped from a dual-stack listener, written as IPv4",
       .src = ip("::ffff:192.0.2.7", 5),
       .dst = ip("::ffff:10.0.0.1", 80),
       .expected = "PROXY TCP4 192.0.2.7 10.0.0.1 5 80\r\n"},
      {.description = "mixed families, IPv4 written mapped",
       .src = ip("2001:db8::7", 5),
       .dst = ip("10.0.0.1", 80),
       .expected = "PROXY TCP6 2001:db8::7 ::ffff:10.0.0.1 5 80\r\n"},
      {.description = "the longest line fits",
       .src = ip("ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe", 65535),
       .dst = ip("ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe", 65535),
       .expected = "PROXY TCP6 ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe "
                   "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe 65535 65535\r\n"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(encode(ProxyVersion::kV1, &c.src, &c.dst), c.expected) << c.description;
  }
}

TEST(EncodeProxyHeader, WritesUnknownAndLocalWithoutAddresses) {
  EXPECT_EQ(encode(ProxyVersion::kV1, nullptr, nullptr), "PROXY UNKNOWN\r\n");
  EXPECT_EQ(encode(ProxyVersion::kV2, nullptr, nullptr), kSig + "\x20\x00\x00\x00"s);
  const SocketAddress none;
  EXPECT_EQ(encode(ProxyVersion::kV1, &none, &none), "PROXY UNKNOWN\r\n");
}

TEST(EncodeProxyHeader, WritesV2ForEachFamily) {
  const SocketAddress v4s = ip("192.0.2.7", 0x1234);
  const SocketAddress v4d = ip("10.0.0.1", 443);
  EXPECT_EQ(encode(ProxyVersion::kV2, &v4s, &v4d),
            kSig + "\x21\x11\x00\x0c"s + "\xc0\x00\x02\x07\x0a\x00\x00\x01\x12\x34\x01\xbb"s);
  const SocketAddress v6s = ip("2001:db8::7", 1);
  const SocketAddress v6d = ip("::1", 2);
  const std::string v6 = encode(ProxyVersion::kV2, &v6s, &v6d);
  ASSERT_EQ(v6.size(), 16u + 36u);
  EXPECT_EQ(v6.substr(12, 4), "\x21\x21\x00\x24"s);
  EXPECT_EQ(v6.substr(16, 4), "\x20\x01\x0d\xb8"s);
  EXPECT_EQ(v6.substr(48), "\x00\x01\x00\x02"s);
}

TEST(ParseProxyHeader, ReadsWhatEncodeWrites) {
  const SocketAddress pairs[][2] = {
      {ip("192.0.2.7", 51000), ip("10.0.0.1", 443)},
      {ip("2001:db8::7", 0), ip("::1", 65535)},
  };
  for (ProxyVersion v : {ProxyVersion::kV1, ProxyVersion::kV2}) {
    for (const auto& [src, dst] : pairs) {
      const std::string bytes = encode(v, &src, &dst) + "GET / HTTP/1.1\r\n";
      const ProxyHeader h = parse_proxy_header(bytes);
      ASSERT_EQ(h.status, Status::kDone) << h.error;
      EXPECT_EQ(bytes.substr(h.length), "GET / HTTP/1.1\r\n");
      ASSERT_TRUE(h.source && h.destination);
      EXPECT_EQ(h.source->to_string(), src.to_string());
      EXPECT_EQ(h.destination->to_string(), dst.to_string());
    }
  }
}

TEST(ParseProxyHeader, EveryPrefixIsIncomplete) {
  const SocketAddress src = ip("2001:db8::7", 9);
  const SocketAddress dst = ip("::1", 10);
  for (ProxyVersion v : {ProxyVersion::kV1, ProxyVersion::kV2}) {
    const std::string whole = encode(v, &src, &dst);
    for (size_t n = 0; n < whole.size(); ++n) {
      EXPECT_EQ(parse_proxy_header(whole.substr(0, n)).status, Status::kIncomplete)
          << static_cast<int>(v) << " prefix " << n;
    }
    EXPECT_EQ(parse_proxy_header(whole).status, Status::kDone);
  }
}

TEST(ParseProxyHeader, UnknownAndLocalCarryNoAddress) {
  struct Case {
    const char* description;
    std::string bytes;
    size_t length;
  };
  const Case cases[] = {
      {.description = "v1 UNKNOWN", .bytes = "PROXY UNKNOWN\r\nx", .length = 15},
      {.description = "v1 UNKNOWN with addresses after it",
       .bytes = "PROXY UNKNOWN ::1 ::1 1 2\r\n",
       .length = 27},
      {.description = "v2 LOCAL", .bytes = kSig + "\x20\x00\x00\x00"s + "x", .length = 16},
      {.description = "v2 LOCAL with a body, skipped",
       .bytes = kSig + "\x20\x11\x00\x03"s + "abc",
       .length = 19},
      {.description = "v2 PROXY UNSPEC", .bytes = kSig + "\x21\x00\x00\x00"s, .length = 16},
      // Not this TCP connection's addresses: a UDP flow's, or an unspecified transport's.
      {.description = "v2 PROXY UDP over IPv4",
       .bytes = kSig + "\x21\x12\x00\x0c"s + "\x7f\x00\x00\x01\x7f\x00\x00\x02\x00\x50\x01\xbb"s,
       .length = 28},
      {.description = "v2 PROXY IPv4 with an unspecified transport",
       .bytes = kSig + "\x21\x10\x00\x0c"s + "\x7f\x00\x00\x01\x7f\x00\x00\x02\x00\x50\x01\xbb"s,
       .length = 28},
      {.description = "v2 PROXY UDP over IPv6",
       .bytes = kSig + "\x21\x22\x00\x24"s + std::string(36, '\x01'),
       .length = 52},
  };
  for (const Case& c : cases) {
    const ProxyHeader h = parse_proxy_header(c.bytes);
    ASSERT_EQ(h.status, Status::kDone) << c.description << ": " << h.error;
    EXPECT_EQ(h.length, c.length) << c.description;
    EXPECT_FALSE(h.source) << c.description;
  }
}

TEST(ParseProxyHeader, SkipsV2Tlvs) {
  // HAProxy's send-proxy-v2 adds TLVs (here an ALPN and a NOOP) after the addresses.
  const std::string tlvs = "\x01\x00\x02h2\x04\x00\x01z"s;
  const std::string bytes = kSig + "\x21\x11"s + std::string(1, '\0') +
                            static_cast<char>(12 + tlvs.size()) +
                            "\x7f\x00\x00\x01\x7f\x00\x00\x02\x00\x50\x01\xbb"s + tlvs + "DATA";
  const ProxyHeader h = parse_proxy_header(bytes);
  ASSERT_EQ(h.status, Status::kDone) << h.error;
  EXPECT_EQ(bytes.substr(h.length), "DATA");
  EXPECT_EQ(h.source->to_string(), "127.0.0.1:80");
  EXPECT_EQ(h.destination->to_string(), "127.0.0.2:443");
}

TEST(ParseProxyHeader, RefusesMalformedAndOversized) {
  struct Case {
    const char* description;
    std::string bytes;
  };
  const Case cases[] = {
      {.description = "plain HTTP", .bytes = "GET / HTTP/1.1\r\n"},
      {.description = "a TLS ClientHello", .bytes = "\x16\x03\x01\x02\x00"s},
      {.description = "v1 lower case", .bytes = "proxy TCP4 1.1.1.1 2.2.2.2 1 2\r\n"},
      {.description = "v1 without a space", .bytes = "PROXYTCP4"},
      {.description = "v1 LF without CR", .bytes = "PROXY TCP4 1.1.1.1 2.2.2.2 1 2\n"},
      {.description = "v1 unknown protocol", .bytes = "PROXY UDP4 1.1.1.1 2.2.2.2 1 2\r\n"},
      {.description = "v1 TCP4 with IPv6", .bytes = "PROXY TCP4 ::1 ::1 1 2\r\n"},
      {.description = "v1 TCP6 with IPv4", .bytes = "PROXY TCP6 1.1.1.1 2.2.2.2 1 2\r\n"},
      {.description = "v1 bad address", .bytes = "PROXY TCP4 1.1.1 2.2.2.2 1 2\r\n"},
      {.description = "v1 scoped IPv6", .bytes = "PROXY TCP6 fe80::1%eth0 ::1 1 2\r\n"},
      {.description = "v1 port too big", .bytes = "PROXY TCP4 1.1.1.1 2.2.2.2 65536 2\r\n"},
      {.description = "v1 port with sign", .bytes = "PROXY TCP4 1.1.1.1 2.2.2.2 +1 2\r\n"},
      {.description = "v1 port with leading zero", .bytes = "PROXY TCP4 1.1.1.1 2.2.2.2 01 2\r\n"},
      {.description = "v1 missing port", .bytes = "PROXY TCP4 1.1.1.1 2.2.2.2 1\r\n"},
      {.description = "v1 extra field", .bytes = "PROXY TCP4 1.1.1.1 2.2.2.2 1 2 3\r\n"},
      {.description = "v1 double space", .bytes = "PROXY TCP4  1.1.1.1 2.2.2.2 1 2\r\n"},
      {.description = "v1 NUL inside", .bytes = "PROXY TCP4 1.1\0"s},
      {.description = "v1 NUL after an address",
       .bytes = "PROXY TCP4 1.2.3.4\0zz 2.2.2.2 1 2\r\n"s},
      {.description = "v1 NUL in a port", .bytes = "PROXY TCP4 1.2.3.4 2.2.2.2 1\0 2\r\n"s},
      {.description = "v1 CR inside", .bytes = "PROXY TCP4 1.1\r1"},
      {.description = "v1 too long", .bytes = "PROXY UNKNOWN " + std::string(100, 'a')},
      {.description = "v2 bad signature", .bytes = "\r\n\r\n\0\r\nQUIX\n"s},
      {.description = "v2 version 1", .bytes = kSig + "\x11\x11\x00\x0c"s},
      {.description = "v2 command 2", .bytes = kSig + "\x22\x11\x00\x0c"s},
      {.description = "v2 family 4", .bytes = kSig + "\x21\x41\x00\x00"s},
      {.description = "v2 transport 3", .bytes = kSig + "\x21\x13\x00\x0c"s},
      {.description = "v2 IPv4 too short",
       .bytes = kSig + "\x21\x11\x00\x0b"s + std::string(11, 'x')},
      {.description = "v2 IPv6 too short",
       .bytes = kSig + "\x21\x21\x00\x0c"s + std::string(12, 'x')},
      {.description = "v2 oversized", .bytes = kSig + "\x21\x11\x08\x01"s},
      {.description = "v2 oversized max", .bytes = kSig + "\x21\x11\xff\xff"s},
  };
  for (const Case& c : cases) {
    const ProxyHeader h = parse_proxy_header(c.bytes);
    EXPECT_EQ(h.status, Status::kInvalid) << c.description;
    EXPECT_FALSE(h.error.empty()) << c.description;
  }
}

TEST(ParseProxyHeader, AcceptsTheLongestV2Body) {
  const std::string bytes = kSig + "\x20\x00\x08\x00"s + std::string(kMaxProxyV2Body, 'x');
  const ProxyHeader h = parse_proxy_header(bytes);
  ASSERT_EQ(h.status, Status::kDone) << h.error;
  EXPECT_EQ(h.length, kMaxProxyHeaderIn);
}

}  // namespace
}  // namespace vigil::net
