#include "config/bind_index.h"

#include <gtest/gtest.h>

namespace vigil::config {
namespace {

BindAddress bind(std::string address, uint16_t port) {
  return {.address = std::move(address), .port = port};
}

TEST(BindIndex, DistinctAddressesOnOnePortDoNotClash) {
  BindIndex index;
  EXPECT_EQ(index.add(bind("127.0.0.1", 80)), std::nullopt);
  EXPECT_EQ(index.add(bind("127.0.0.2", 80)), std::nullopt);
  EXPECT_EQ(index.add(bind("127.0.0.1", 81)), std::nullopt);
  EXPECT_EQ(index.size(), 3u);
}

TEST(BindIndex, TheSameAddressAndPortNamesTheFirst) {
  BindIndex index;
  index.add(bind("127.0.0.1", 80));
  index.add(bind("127.0.0.2", 80));
  EXPECT_EQ(index.add(bind("127.0.0.2", 80)), 1u);
  EXPECT_EQ(index.add(bind("127.0.0.2", 80)), 1u);
}

TEST(BindIndex, AWildcardClashesWithTheFirstBindOfItsFamily) {
  BindIndex index;
  index.add(bind("::1", 80));
  index.add(bind("127.0.0.1", 80));
  EXPECT_EQ(index.add(bind("0.0.0.0", 80)), 1u);  // IPv4 only
  EXPECT_EQ(index.add(bind("::", 80)), 0u);       // dual-stack: every address
  EXPECT_EQ(index.add(bind("", 80)), 0u);
}

TEST(BindIndex, ASpecificAddressClashesWithAnEarlierWildcard) {
  BindIndex index;
  index.add(bind("127.0.0.1", 80));
  index.add(bind("0.0.0.0", 80));  // clashes with 0
  EXPECT_EQ(index.add(bind("127.0.0.5", 80)), 1u);
  EXPECT_EQ(index.add(bind("::1", 80)), std::nullopt);  // 0.0.0.0 takes no IPv6 address
  EXPECT_EQ(index.add(bind("127.0.0.1", 80)), 0u);      // the earliest of the two
}

TEST(BindIndex, FindRecordsNothing) {
  BindIndex index;
  index.add(bind("127.0.0.1", 80));
  EXPECT_EQ(index.find(bind("127.0.0.2", 80)), std::nullopt);
  EXPECT_EQ(index.add(bind("127.0.0.2", 80)), std::nullopt);  // the find left no trace
  EXPECT_EQ(index.find(bind("0.0.0.0", 80)), 0u);
  EXPECT_EQ(index.find(bind("127.0.0.1", 443)), std::nullopt);
  EXPECT_EQ(index.size(), 2u);
}

TEST(BindIndex, PortZeroNeverClashes) {
  BindIndex index;
  index.add(bind("127.0.0.1", 0));
  EXPECT_EQ(index.add(bind("127.0.0.1", 0)), std::nullopt);
  EXPECT_EQ(index.add(bind("", 0)), std::nullopt);
}

// The index must agree with the pairwise rule it replaces, on every order of a mixed set.
TEST(BindIndex, AgreesWithPairwiseOverlap) {
  const std::vector<BindAddress> pool = {
      bind("127.0.0.1", 80), bind("127.0.0.2", 80), bind("0.0.0.0", 80),   bind("::", 80),
      bind("::1", 80),       bind("", 80),          bind("127.0.0.1", 81), bind("127.0.0.1", 0)};
  for (size_t seed = 0; seed < 500; ++seed) {
    std::vector<BindAddress> binds;
    size_t x = seed * 2654435761u + 1;
    for (int i = 0; i < 6; ++i) {
      x = x * 6364136223846793005u + 1442695040888963407u;
      binds.push_back(pool[(x >> 33) % pool.size()]);
    }
    BindIndex index;
    for (size_t j = 0; j < binds.size(); ++j) {
      std::optional<size_t> want;
      for (size_t i = 0; i < j && !want; ++i) {
        if (binds_overlap(binds[i], binds[j])) want = i;
      }
      ASSERT_EQ(index.find(binds[j]), want) << "seed " << seed << " bind " << j;
      ASSERT_EQ(index.size(), j) << "find() recorded the bind";
      ASSERT_EQ(index.add(binds[j]), want) << "seed " << seed << " bind " << j;
    }
  }
}

}  // namespace
}  // namespace vigil::config
