// The peer sync's frames: every kind survives a round trip however the stream splits it, and a
// peer's garbage is an error, never a crash or a wait for bytes that will not come.
#include "peers/wire.h"

#include <gtest/gtest.h>

namespace vigil::peers {
namespace {

net::SocketAddress at(const char* ip, uint16_t port) {
  return *net::SocketAddress::from_ip(ip, port);
}

std::vector<Frame> every_kind() {
  return {Hello{.name = "lb1", .nonce = {1, 2, 3}},
          ProofFrame{.proof = {9, 8, 7}},
          Reset{},
          Add{.sessions = {{.key = 1,
                            .local = at("192.0.2.10", 6443),
                            .client = at("198.51.100.7", 40001)},
                           {.key = 1ull << 60,
                            .local = at("2001:db8::10", 443),
                            .client = at("2001:db8::7", 5)}}},
          Remove{.keys = {1, 2, 1ull << 63}},
          Synced{},
          Beat{}};
}

std::vector<Frame> read_all(FrameReader& r) {
  std::vector<Frame> out;
  for (;;) {
    auto f = r.next();
    EXPECT_TRUE(f) << f.error().message;
    if (!f || !*f) return out;
    out.push_back(std::move(**f));
  }
}

TEST(PeerWire, EveryFrameRoundTrips) {
  std::vector<uint8_t> bytes;
  for (const Frame& f : every_kind()) append(bytes, f);
  FrameReader r;
  r.feed(bytes);
  EXPECT_EQ(read_all(r), every_kind());
}

TEST(PeerWire, AStreamSplitAnywhereGivesTheSameFrames) {
  std::vector<uint8_t> bytes;
  for (const Frame& f : every_kind()) append(bytes, f);
  FrameReader r;
  std::vector<Frame> got;
  for (uint8_t byte : bytes) {  // one byte at a time: the worst split
    r.feed(std::span(&byte, 1));
    auto more = read_all(r);
    got.insert(got.end(), more.begin(), more.end());
  }
  EXPECT_EQ(got, every_kind());
}

TEST(PeerWire, ManySessionsGoInFramesOfAtMostABatch) {
  std::vector<SessionEntry> sessions(kMaxBatch * 2 + 1);
  for (size_t i = 0; i < sessions.size(); ++i) {
    sessions[i] = {.key = i, .local = at("192.0.2.10", 6443), .client = at("198.51.100.7", 1000)};
  }
  std::vector<uint8_t> bytes;
  append_adds(bytes, sessions);
  FrameReader r;
  r.feed(bytes);
  const auto frames = read_all(r);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(std::get<Add>(frames[0]).sessions.size(), kMaxBatch);
  EXPECT_EQ(std::get<Add>(frames[2]).sessions.back(), sessions.back());
}

Result<std::optional<Frame>> read_one(std::vector<uint8_t> bytes) {
  FrameReader r;
  r.feed(bytes);
  return r.next();
}

TEST(PeerWire, GarbageIsAnError) {
  EXPECT_FALSE(read_one({0, 0, 0, 1, 99}));             // an unknown type
  EXPECT_FALSE(read_one({0, 0, 0, 0}));                 // an empty frame
  EXPECT_FALSE(read_one({0x7f, 0xff, 0xff, 0xff, 4}));  // longer than 1 MiB
  EXPECT_FALSE(read_one({0, 0, 0, 4, 4, 0, 1, 0}));     // an add cut short
  EXPECT_FALSE(read_one({0, 0, 0, 2, 7, 0}));           // a beat with a payload
  EXPECT_FALSE(read_one({0, 0, 0, 3, 1, 2, 0}));        // a hello of another version
  EXPECT_FALSE(read_one({0, 0, 0, 3, 5, 0x10, 0x01}));  // a remove of 4097 keys
  std::vector<uint8_t> add_of_family_5 = {0, 0, 0, 12, 4, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 5};
  EXPECT_FALSE(read_one(add_of_family_5));
}

TEST(PeerWire, AnIncompleteFrameWaitsForMore) {
  auto half = read_one({0, 0, 0, 9, 1});
  ASSERT_TRUE(half);
  EXPECT_FALSE(*half);
}

TEST(PeerWire, ProofsDependOnTokenRoleNoncesAndNames) {
  const Hello c{.name = "lb1", .nonce = {1}};
  const Hello s{.name = "lb2", .nonce = {2}};
  const Proof p = proof("secret", 'C', c, s);
  EXPECT_TRUE(same_proof(p, proof("secret", 'C', c, s)));
  EXPECT_FALSE(same_proof(p, proof("other", 'C', c, s)));
  EXPECT_FALSE(same_proof(p, proof("secret", 'S', c, s)));  // the other side's cannot be replayed
  EXPECT_FALSE(same_proof(p, proof("secret", 'C', s, c)));
  EXPECT_FALSE(same_proof(p, proof("secret", 'C', c, Hello{.name = "lb2", .nonce = {3}})));
  EXPECT_NE(random_nonce(), random_nonce());
}

}  // namespace
}  // namespace vigil::peers
