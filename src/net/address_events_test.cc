#include "net/address_events.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vigil::net {
namespace {

const std::string kVip("\xc0\x00\x02\x64", 4);  // 192.0.2.100
const std::string kVip6("\x20\x01\x0d\xb8\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01",
                        16);  // 2001:db8::1

TEST(AddressEvents, ReadsAdditionsAndRemovalsOfBothFamilies) {
  std::vector<uint8_t> datagram = address_event_message(false, kVip, 3);
  const auto added6 = address_event_message(true, kVip6, 4);
  datagram.insert(datagram.end(), added6.begin(), added6.end());
  const auto events = parse_address_events(datagram);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_FALSE(events[0].added);
  EXPECT_EQ(events[0].ip, kVip);
  EXPECT_EQ(events[0].interface, 3);
  EXPECT_TRUE(events[1].added);
  EXPECT_EQ(events[1].ip, kVip6);
}

TEST(AddressEvents, ATruncatedOrForeignMessageIsSkippedNeverReadPast) {
  const auto whole = address_event_message(false, kVip, 3);
  for (size_t cut = 0; cut < whole.size(); ++cut) {
    const std::vector<uint8_t> part(whole.begin(), whole.begin() + static_cast<long>(cut));
    EXPECT_TRUE(parse_address_events(part).empty()) << "cut at " << cut;
  }
  std::vector<uint8_t> foreign = whole;
  foreign[4] = 16;  // RTM_NEWLINK: not an address message
  EXPECT_TRUE(parse_address_events(foreign).empty());
  std::vector<uint8_t> odd_length = address_event_message(false, std::string("\x01\x02\x03", 3), 3);
  EXPECT_TRUE(parse_address_events(odd_length).empty()) << "3 bytes are no IPv4 address";
}

}  // namespace
}  // namespace vigil::net
