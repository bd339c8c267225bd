#include "proxy/stick_table.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace vigil::proxy {
namespace {

using std::chrono::seconds;

// Raw address bytes, as sessions hold them.
std::string ip(const char* text) {
  unsigned char b[16] = {};
  if (inet_pton(AF_INET, text, b) == 1) return {reinterpret_cast<char*>(b), 4};
  EXPECT_EQ(inet_pton(AF_INET6, text, b), 1) << text;
  return {reinterpret_cast<char*>(b), 16};
}

StickKey key(const char* text, int v4_prefix = 32, int v6_prefix = 128) {
  return stick_key(ip(text), v4_prefix, v6_prefix);
}

const TimePoint t0{};

TEST(StickKey, CutsEachFamilyToItsPrefix) {
  struct Case {
    const char* a;
    const char* b;
    int v4_prefix = 32;
    int v6_prefix = 128;
    bool same;
  };
  const Case cases[] = {
      {.a = "10.0.0.1", .b = "10.0.0.1", .same = true},
      {.a = "10.0.0.1", .b = "10.0.0.2", .same = false},
      {.a = "10.0.0.1", .b = "10.0.0.200", .v4_prefix = 24, .same = true},
      {.a = "10.0.0.1", .b = "10.0.1.1", .v4_prefix = 24, .same = false},
      {.a = "10.0.0.1", .b = "::ffff:10.0.0.1", .same = true},  // a dual-stack listener's view
      {.a = "2001:db8::1", .b = "2001:db8::2", .same = false},
      {.a = "2001:db8::1", .b = "2001:db8::ffff:2", .v6_prefix = 64, .same = true},
      {.a = "2001:db8:0:1::1", .b = "2001:db8::1", .v6_prefix = 64, .same = false},
      // A mask of one family leaves the other's addresses whole.
      {.a = "2001:db8::1", .b = "2001:db8::2", .v4_prefix = 8, .same = false},
      {.a = "10.0.0.1", .b = "10.0.0.2", .v6_prefix = 64, .same = false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(key(c.a, c.v4_prefix, c.v6_prefix) == key(c.b, c.v4_prefix, c.v6_prefix), c.same)
        << c.a << " " << c.b;
  }
}

TEST(StickTable, RemembersUntilUnusedForTheTimeout) {
  StickTable table(100, seconds(360), t0);
  table.put(key("10.0.0.1"), 7, t0);
  EXPECT_EQ(table.find(key("10.0.0.1"), t0 + seconds(359)), 7u);
  // The hit at 359 s restarted the timeout.
  EXPECT_EQ(table.find(key("10.0.0.1"), t0 + seconds(700)), 7u);
  EXPECT_EQ(table.find(key("10.0.0.1"), t0 + seconds(1060)), std::nullopt);
  EXPECT_EQ(table.size(t0 + seconds(1060)), 0u);
}

TEST(StickTable, ReplacesAClientsMember) {
  StickTable table(100, seconds(360), t0);
  table.put(key("10.0.0.1"), 7, t0);
  table.put(key("10.0.0.1"), 8, t0);
  EXPECT_EQ(table.find(key("10.0.0.1"), t0), 8u);
  EXPECT_EQ(table.size(t0), 1u);
  EXPECT_EQ(table.used(), 1u);
}

std::string address(int i) { return "10.0.0." + std::to_string(i); }

TEST(StickTable, KeepsItsBoundAndEvictsTheLeastRecentlyUsed) {
  constexpr int kWays = StickTable::kWays;
  StickTable table(kWays, seconds(360), t0);  // one group
  ASSERT_EQ(table.capacity(), StickTable::kWays);
  for (int i = 1; i <= kWays; ++i) table.put(key(address(i).c_str()), i, t0 + seconds(i));
  // Now 2 is the least recently used.
  EXPECT_EQ(table.find(key(address(1).c_str()), t0 + seconds(kWays + 1)), 1u);
  table.put(key(address(kWays + 1).c_str()), kWays + 1, t0 + seconds(kWays + 2));
  EXPECT_EQ(table.size(t0 + seconds(kWays + 2)), StickTable::kWays);
  const TimePoint later = t0 + seconds(kWays + 3);
  EXPECT_EQ(table.find(key(address(2).c_str()), later), std::nullopt);
  for (int i = 1; i <= kWays + 1; ++i) {
    if (i != 2) {
      EXPECT_EQ(table.find(key(address(i).c_str()), later), static_cast<uint32_t>(i)) << i;
    }
  }
}

TEST(StickTable, ExpiredEntriesLeaveRoomWithoutEvictingFreshOnes) {
  constexpr int kWays = StickTable::kWays;
  StickTable table(kWays, seconds(10), t0);
  table.put(key(address(1).c_str()), 1, t0);
  for (int i = 2; i <= kWays; ++i) table.put(key(address(i).c_str()), i, t0 + seconds(8));
  table.put(key(address(kWays + 1).c_str()), kWays + 1, t0 + seconds(12));  // 1 expired at 10 s
  for (int i = 2; i <= kWays + 1; ++i) {
    EXPECT_EQ(table.find(key(address(i).c_str()), t0 + seconds(12)), static_cast<uint32_t>(i));
  }
  EXPECT_EQ(table.find(key(address(1).c_str()), t0 + seconds(12)), std::nullopt);
}

StickKey client(int i) {
  char text[64];
  if (i % 2 == 0) {
    snprintf(text, sizeof text, "10.%d.%d.%d", (i >> 16) & 255, (i >> 8) & 255, i & 255);
  } else {
    snprintf(text, sizeof text, "2001:db8::%x:%x", (i >> 16) & 0xffff, i & 0xffff);
  }
  return key(text);
}

TEST(StickTable, StaysBoundedUnderManyClients) {
  // Far more clients than entries, from both families: the table never holds more than its
  // capacity, and the latest clients are all there.
  constexpr size_t kCapacity = 1000;
  StickTable table(kCapacity, std::chrono::hours(1000), t0, 42);
  EXPECT_EQ(table.capacity(), kCapacity);
  for (int i = 0; i < 50000; ++i) table.put(client(i), static_cast<uint32_t>(i), t0 + seconds(i));
  const TimePoint later = t0 + seconds(50000);
  EXPECT_LE(table.size(later), kCapacity);
  EXPECT_LE(table.used(), kCapacity);
  EXPECT_GT(table.size(later), kCapacity * 9 / 10);
  for (int i = 50000 - 50; i < 50000; ++i) {
    EXPECT_EQ(table.find(client(i), later), static_cast<uint32_t>(i)) << i;
  }
  EXPECT_EQ(table.find(client(0), later), std::nullopt);
}

TEST(StickTable, WorkersShareItWithoutLocks) {
  // Two threads storing and finding the same clients at once: each finds a member one of them
  // stored for that client, never another client's, and the bound holds.
  StickTable table(256, seconds(360), t0, 7);
  auto work = [&](uint32_t base) {
    for (int round = 0; round < 200; ++round) {
      for (int i = 0; i < 500; ++i) {
        table.put(client(i), base + static_cast<uint32_t>(i), t0 + seconds(round));
        if (auto m = table.find(client(i), t0 + seconds(round))) {
          EXPECT_EQ(*m % 1000000, static_cast<uint32_t>(i));
        }
      }
    }
  };
  std::thread other(work, 1000000);
  work(2000000);
  other.join();
  EXPECT_LE(table.size(t0 + seconds(200)), table.capacity());
}

TEST(StickTable, ReadersNeverPairOneClientWithAnothersMember) {
  // One group of slots and three times more clients than it holds, stored and found by three
  // threads at once with the clock moving, so that a slot changes hands while a reader reads or
  // refreshes it, and sometimes goes back to the client it held before.
  StickTable table(StickTable::kWays, seconds(360), t0, 11);
  constexpr int kClients = 3 * StickTable::kWays;
  auto work = [&](uint32_t base) {
    for (int round = 0; round < 20000; ++round) {
      const TimePoint now = t0 + seconds(round);
      const int i = (round * 7 + static_cast<int>(base / 1000000)) % kClients;
      table.put(client(i), base + static_cast<uint32_t>(i), now);
      for (int j = 0; j < kClients; ++j) {
        if (auto m = table.find(client(j), now)) {
          EXPECT_EQ(*m % 1000000, static_cast<uint32_t>(j));
        }
      }
    }
  };
  std::thread a(work, 1000000);
  std::thread b(work, 2000000);
  work(3000000);
  a.join();
  b.join();
  EXPECT_LE(table.size(t0 + seconds(20000)), table.capacity());
}

}  // namespace
}  // namespace vigil::proxy
