#include "net/tickle.h"

#include <gtest/gtest.h>
#include <netinet/in.h>

#include <vector>

namespace vigil::net {
namespace {

uint16_t at16(const std::vector<uint8_t>& p, size_t i) {
  return static_cast<uint16_t>((p[i] << 8) | p[i + 1]);
}

// The TCP checksum over its pseudo-header and segment: 0 when the packet's own checksum is right.
uint16_t tcp_check(const std::vector<uint8_t>& packet, size_t ip_header, size_t address_size) {
  const size_t src = ip_header == 20 ? 12 : 8;
  std::vector<uint8_t> pseudo(packet.begin() + static_cast<long>(src),
                              packet.begin() + static_cast<long>(src + 2 * address_size));
  const uint8_t length = static_cast<uint8_t>(packet.size() - ip_header);
  if (address_size == 4) {
    pseudo.insert(pseudo.end(), {0, IPPROTO_TCP, 0, length});
  } else {
    pseudo.insert(pseudo.end(), {0, 0, 0, length, 0, 0, 0, IPPROTO_TCP});
  }
  pseudo.insert(pseudo.end(), packet.begin() + static_cast<long>(ip_header), packet.end());
  return internet_checksum(pseudo.data(), pseudo.size());
}

TEST(Tickle, AnIpv4AckWithNumbersZeroFromTheAddressTheClientUsed) {
  const auto from = *SocketAddress::from_ip("192.0.2.100", 6443);
  const auto to = *SocketAddress::from_ip("198.51.100.50", 40001);
  const std::vector<uint8_t> p = tickle_packet(from, to);
  ASSERT_EQ(p.size(), 40u);
  EXPECT_EQ(p[0], 0x45);
  EXPECT_EQ(p[9], IPPROTO_TCP);
  EXPECT_EQ(internet_checksum(p.data(), 20), 0) << "the IP header's checksum";
  EXPECT_EQ(std::string(p.begin() + 12, p.begin() + 16), from.ip_bytes());
  EXPECT_EQ(std::string(p.begin() + 16, p.begin() + 20), to.ip_bytes());
  EXPECT_EQ(at16(p, 20), 6443);
  EXPECT_EQ(at16(p, 22), 40001);
  EXPECT_EQ(std::vector<uint8_t>(p.begin() + 24, p.begin() + 32), std::vector<uint8_t>(8, 0))
      << "sequence and acknowledgement numbers 0: outside any window";
  EXPECT_EQ(p[33], 0x10) << "ACK alone";
  EXPECT_EQ(tcp_check(p, 20, 4), 0) << "the TCP checksum";
}

TEST(Tickle, AnIpv6Ack) {
  const auto from = *SocketAddress::from_ip("2001:db8::100", 6443);
  const auto to = *SocketAddress::from_ip("2001:db8::50", 40001);
  const std::vector<uint8_t> p = tickle_packet(from, to);
  ASSERT_EQ(p.size(), 60u);
  EXPECT_EQ(p[0] >> 4, 6);
  EXPECT_EQ(at16(p, 4), 20) << "payload length";
  EXPECT_EQ(p[6], IPPROTO_TCP);
  EXPECT_EQ(at16(p, 40), 6443);
  EXPECT_EQ(tcp_check(p, 40, 16), 0);
}

TEST(Tickle, MixedFamiliesMakeNoPacket) {
  EXPECT_TRUE(tickle_packet(*SocketAddress::from_ip("192.0.2.100", 1),
                            *SocketAddress::from_ip("2001:db8::50", 2))
                  .empty());
}

TEST(InternetChecksum, MatchesRfc1071sExample) {
  // RFC 1071 section 3: the sum of these bytes is ddf2, so the checksum is its complement.
  const std::vector<uint8_t> data = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  EXPECT_EQ(internet_checksum(data.data(), data.size()), static_cast<uint16_t>(~0xddf2));
}

}  // namespace
}  // namespace vigil::net
