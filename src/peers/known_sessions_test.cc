// What this node keeps of its peers' sessions, and which it takes out to tickle.
#include "peers/known_sessions.h"

#include <gtest/gtest.h>

namespace vigil::peers {
namespace {

SessionEntry session(uint64_t key, const char* local, uint16_t client_port) {
  return {.key = key,
          .local = *net::SocketAddress::from_ip(local, 6443),
          .client = *net::SocketAddress::from_ip("198.51.100.7", client_port)};
}

std::string ip(const char* text) {
  return std::string(net::SocketAddress::from_ip(text, 0)->ip_bytes());
}

TEST(KnownSessions, AddsRemovesAndAResetStartAfresh) {
  KnownSessions k;
  ASSERT_TRUE(
      k.apply("lb1", Add{.sessions = {session(1, "192.0.2.10", 1), session(2, "192.0.2.10", 2)}}));
  ASSERT_TRUE(k.apply("lb1", Remove{.keys = {1, 99}}));
  EXPECT_EQ(k.state("lb1").sessions, 1u);
  EXPECT_FALSE(k.state("lb1").synced);
  ASSERT_TRUE(k.apply("lb1", Synced{}));
  EXPECT_TRUE(k.state("lb1").synced);
  ASSERT_TRUE(k.apply("lb1", Reset{}));
  EXPECT_EQ(k.state("lb1").sessions, 0u);
  EXPECT_FALSE(k.state("lb1").synced);
}

TEST(KnownSessions, GainingAnAddressTakesEveryPeersSessionsOnIt) {
  KnownSessions k;
  ASSERT_TRUE(
      k.apply("lb1", Add{.sessions = {session(1, "192.0.2.10", 1), session(2, "192.0.2.11", 2)}}));
  ASSERT_TRUE(k.apply("lb3", Add{.sessions = {session(1, "192.0.2.10", 3)}}));
  const auto taken = k.take_on(ip("192.0.2.10"));
  EXPECT_EQ(taken.size(), 2u);
  EXPECT_EQ(k.total(), 1u);                          // the one on the other address stays
  EXPECT_TRUE(k.take_on(ip("192.0.2.10")).empty());  // each is tickled once
}

TEST(KnownSessions, AnIpv4MappedLocalAddressIsItsIpv4One) {
  KnownSessions k;
  ASSERT_TRUE(k.apply("lb1", Add{.sessions = {session(1, "::ffff:192.0.2.10", 1)}}));
  EXPECT_EQ(k.take_on(ip("192.0.2.10")).size(), 1u);
}

TEST(KnownSessions, APeerLostGivesUpOnlyItsSessionsOnAddressesHeldHere) {
  KnownSessions k;
  ASSERT_TRUE(
      k.apply("lb1", Add{.sessions = {session(1, "192.0.2.10", 1), session(2, "192.0.2.11", 2)}}));
  ASSERT_TRUE(k.apply("lb2", Add{.sessions = {session(3, "192.0.2.10", 3)}}));
  const std::string held = ip("192.0.2.10");
  const auto taken = k.take_of("lb1", [&](std::string_view a) { return a == held; });
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].key, 1u);
  EXPECT_EQ(k.state("lb1").sessions, 1u);  // kept for when this node gains 192.0.2.11
  EXPECT_EQ(k.state("lb2").sessions, 1u);
  EXPECT_TRUE(k.take_of("nobody", [](std::string_view) { return true; }).empty());
}

TEST(KnownSessions, APeerPastTheBoundIsForgotten) {
  KnownSessions k(2);
  ASSERT_TRUE(
      k.apply("lb1", Add{.sessions = {session(1, "192.0.2.10", 1), session(2, "192.0.2.10", 2)}}));
  ASSERT_TRUE(k.apply("lb1", Add{.sessions = {session(2, "192.0.2.10", 2)}}));  // the same again
  const auto over = k.apply("lb1", Add{.sessions = {session(3, "192.0.2.10", 3)}});
  ASSERT_FALSE(over);
  EXPECT_NE(over.error().message.find("more than 2 sessions"), std::string::npos);
  EXPECT_EQ(k.total(), 0u);
}

}  // namespace
}  // namespace vigil::peers
