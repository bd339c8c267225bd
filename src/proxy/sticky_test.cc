#include "proxy/sticky.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace vigil::proxy {
namespace {

using std::chrono::seconds;

const TimePoint t0{};

std::shared_ptr<StickTable> new_table(Duration timeout = seconds(360)) {
  return std::make_shared<StickTable>(10000, timeout, t0);
}

// A snapshot of the pool with `table`; null: hashing alone.
PoolSnapshot sticky_pool(std::vector<std::string> members, std::shared_ptr<StickTable> table,
                         int v4_prefix = 32) {
  PoolSnapshot pool;
  pool.algorithm = model::Algorithm::kRoundRobin;  // the first pick hashes whatever it says
  pool.stickiness = {.on = true, .v4_prefix = v4_prefix, .table = std::move(table)};
  for (auto& name : members) {
    pool.candidates.push_back({.member_id = name,
                               .name = name,
                               .address = *net::SocketAddress::from_ip("127.0.0.1", 1),
                               .stats = std::make_shared<BackendStats>()});
  }
  return pool;
}

std::string client(int i) { return {char(10), char(i >> 16), char(i >> 8), char(i)}; }

std::string picked(Balancer& b, const PoolSnapshot& pool, const std::string& ip, TimePoint now,
                   std::span<const uint32_t> tried = {}) {
  const int i = b.pick(pool, {.client_ip = ip, .tried = tried, .now = now});
  return i < 0 ? "" : pool.candidates[i].name;
}

TEST(Sticky, AddingAMemberMovesNoKnownClientWhicheverWorkerSeesIt) {
  auto table = new_table();
  auto three = sticky_pool({"a", "b", "c"}, table);
  auto worker1 = make_balancer(three);
  std::map<std::string, std::string> first;
  for (int i = 0; i < 1000; ++i) first[client(i)] = picked(*worker1, three, client(i), t0);
  // Every worker makes a new balancer for the new snapshot; the table is the same.
  auto four = sticky_pool({"a", "b", "c", "d"}, table);
  auto worker2 = make_balancer(four);
  for (const auto& [ip, m] : first) EXPECT_EQ(picked(*worker2, four, ip, t0 + seconds(1)), m);
  // Hashing alone would have moved about a quarter of them to d.
  auto hashing = make_balancer(sticky_pool({"a", "b", "c", "d"}, nullptr));
  int moved = 0;
  for (const auto& [ip, m] : first) moved += picked(*hashing, four, ip, t0) != m;
  EXPECT_GT(moved, 150);
  // New clients do reach d.
  int on_d = 0;
  for (int i = 1000; i < 2000; ++i) on_d += picked(*worker2, four, client(i), t0) == "d";
  EXPECT_GT(on_d, 150);
}

TEST(Sticky, RemovingAMemberMovesOnlyItsClientsAndTheyStayMoved) {
  auto table = new_table();
  auto three = sticky_pool({"a", "b", "c"}, table);
  auto b3 = make_balancer(three);
  std::map<std::string, std::string> first;
  for (int i = 0; i < 300; ++i) first[client(i)] = picked(*b3, three, client(i), t0);
  auto two = sticky_pool({"a", "c"}, table);  // b DOWN, disabled or drained: not a candidate
  auto b2 = make_balancer(two);
  std::map<std::string, std::string> second;
  for (const auto& [ip, m] : first) {
    second[ip] = picked(*b2, two, ip, t0 + seconds(1));
    if (m != "b") {
      EXPECT_EQ(second[ip], m);
    }
  }
  // b is back: its former clients were stuck anew and stay where they went, on any worker.
  auto b3again = make_balancer(three);
  for (const auto& [ip, m] : second) EXPECT_EQ(picked(*b3again, three, ip, t0 + seconds(2)), m);
}

TEST(Sticky, ATriedStickyMemberIsLeftForAnother) {
  auto pool = sticky_pool({"a", "b", "c"}, new_table());
  auto b = make_balancer(pool);
  const std::string ip = client(1);
  const std::string m = picked(*b, pool, ip, t0);
  const std::vector<uint32_t> tried = {static_cast<uint32_t>(m[0] - 'a')};
  const std::string other = picked(*b, pool, ip, t0, tried);
  EXPECT_NE(other, m);
  EXPECT_EQ(picked(*b, pool, ip, t0), other);  // re-stuck to the one that took it
}

TEST(Sticky, AnExpiredClientIsPickedAnew) {
  auto table = new_table(seconds(10));
  auto two = sticky_pool({"a", "b"}, table);
  const std::string ip = client(5);
  const std::string m = picked(*make_balancer(two), two, ip, t0);
  auto one = sticky_pool({m == "a" ? "b" : "a"}, table);
  EXPECT_NE(picked(*make_balancer(one), one, ip, t0 + seconds(1)), m);
  // Its new entry expires; it goes back to where hashing sends it among both.
  EXPECT_EQ(picked(*make_balancer(two), two, ip, t0 + seconds(30)), m);
}

TEST(Sticky, ANetworkSharesOneMemberUnderAGranularity) {
  auto table = new_table();
  auto pool = sticky_pool({"a", "b", "c", "d", "e"}, table, 24);
  auto b = make_balancer(pool);
  const std::string first = picked(*b, pool, std::string("\x0a\x01\x02\x03", 4), t0);
  for (int host = 0; host < 256; ++host) {
    EXPECT_EQ(picked(*b, pool, std::string("\x0a\x01\x02", 3) + char(host), t0), first);
  }
  EXPECT_EQ(table->size(t0), 1u);
}

TEST(Sticky, SkipsTriedMembersAndReportsExhaustion) {
  auto pool = sticky_pool({"a", "b", "c"}, new_table());
  auto b = make_balancer(pool);
  std::vector<uint32_t> tried;
  for (int i = 0; i < 3; ++i) {
    const int pick = b->pick(pool, {.client_ip = client(1), .tried = tried, .now = t0});
    ASSERT_GE(pick, 0);
    EXPECT_FALSE(was_tried(tried, static_cast<uint32_t>(pick)));
    tried.push_back(static_cast<uint32_t>(pick));
  }
  EXPECT_EQ(b->pick(pool, {.client_ip = client(1), .tried = tried, .now = t0}), -1);
}

}  // namespace
}  // namespace vigil::proxy
