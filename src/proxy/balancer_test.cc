#include "proxy/balancer.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace vigil::proxy {
namespace {

PoolSnapshot make_pool(model::Algorithm algorithm,
                       std::vector<std::pair<std::string, int>> members) {
  PoolSnapshot pool;
  pool.algorithm = algorithm;
  for (auto& [name, weight] : members) {
    pool.candidates.push_back({.member_id = name,
                               .name = name,
                               .address = *net::SocketAddress::from_ip("127.0.0.1", 1),
                               .weight = weight,
                               .stats = std::make_shared<BackendStats>()});
  }
  return pool;
}

std::string picks(Balancer& b, const PoolSnapshot& pool, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += pool.candidates[b.pick(pool, {})].name;
  return out;
}

TEST(RoundRobin, IsSmoothNotBursty) {
  auto pool = make_pool(model::Algorithm::kRoundRobin, {{"a", 5}, {"b", 1}, {"c", 1}});
  auto b = make_balancer(pool);
  // nginx's smooth weighted round robin: never five a's in a row.
  EXPECT_EQ(picks(*b, pool, 7), "aabacaa");
}

TEST(RoundRobin, GivesWeightedSharesOverManyPicks) {
  auto pool = make_pool(model::Algorithm::kRoundRobin, {{"a", 3}, {"b", 2}, {"c", 1}});
  auto b = make_balancer(pool);
  std::map<char, int> count;
  for (char c : picks(*b, pool, 6000)) ++count[c];
  EXPECT_EQ(count['a'], 3000);
  EXPECT_EQ(count['b'], 2000);
  EXPECT_EQ(count['c'], 1000);
}

TEST(Balancers, SkipTriedMembersAndReportExhaustion) {
  for (auto algorithm : {model::Algorithm::kRoundRobin, model::Algorithm::kLeastConnections,
                         model::Algorithm::kSourceIp}) {
    auto pool = make_pool(algorithm, {{"a", 1}, {"b", 1}, {"c", 1}});
    auto b = make_balancer(pool);
    std::vector<uint32_t> tried;
    for (int i = 0; i < 3; ++i) {
      const int pick = b->pick(pool, {.client_ip = "\x7f\0\0\1", .tried = tried});
      ASSERT_GE(pick, 0) << model::to_string(algorithm);
      EXPECT_FALSE(was_tried(tried, static_cast<uint32_t>(pick)));
      tried.push_back(static_cast<uint32_t>(pick));
    }
    EXPECT_EQ(b->pick(pool, {.client_ip = "\x7f\0\0\1", .tried = tried}), -1);
  }
}

TEST(Balancers, EmptyPoolPicksNothing) {
  for (auto algorithm : {model::Algorithm::kRoundRobin, model::Algorithm::kLeastConnections,
                         model::Algorithm::kSourceIp}) {
    auto pool = make_pool(algorithm, {});
    EXPECT_EQ(make_balancer(pool)->pick(pool, {}), -1);
  }
}

TEST(LeastConnections, PrefersFewestActivePerWeight) {
  auto pool = make_pool(model::Algorithm::kLeastConnections, {{"a", 1}, {"b", 1}, {"c", 2}});
  pool.candidates[0].stats->active = 5;
  pool.candidates[1].stats->active = 2;
  pool.candidates[2].stats->active = 6;  // 3 per unit of weight
  auto b = make_balancer(pool);
  EXPECT_EQ(pool.candidates[b->pick(pool, {})].name, "b");
  pool.candidates[1].stats->active = 4;
  EXPECT_EQ(pool.candidates[b->pick(pool, {})].name, "c");
}

TEST(LeastConnections, RotatesTiesSoAnIdlePoolIsShared) {
  auto pool = make_pool(model::Algorithm::kLeastConnections, {{"a", 1}, {"b", 1}, {"c", 1}});
  auto b = make_balancer(pool);
  std::map<char, int> count;
  for (char c : picks(*b, pool, 300)) ++count[c];
  EXPECT_EQ(count['a'], 100);
  EXPECT_EQ(count['b'], 100);
  EXPECT_EQ(count['c'], 100);
}

TEST(SourceIp, SameClientSameMemberAndOnlyLeaversMove) {
  auto pool = make_pool(model::Algorithm::kSourceIp, {{"a", 1}, {"b", 1}, {"c", 1}});
  auto b = make_balancer(pool);
  std::map<std::string, std::string> first;
  std::map<char, int> share;
  for (int i = 0; i < 3000; ++i) {
    const std::string ip = {char(10), char(i >> 16), char(i >> 8), char(i)};
    const std::string m = pool.candidates[b->pick(pool, {.client_ip = ip})].name;
    EXPECT_EQ(m, pool.candidates[b->pick(pool, {.client_ip = ip})].name);
    first[ip] = m;
    ++share[m[0]];
  }
  for (char c : {'a', 'b', 'c'}) EXPECT_NEAR(share[c], 1000, 150) << c;
  // Remove b: clients of a and c stay where they were.
  auto smaller = make_pool(model::Algorithm::kSourceIp, {{"a", 1}, {"c", 1}});
  for (const auto& [ip, m] : first) {
    if (m == "b") continue;
    EXPECT_EQ(smaller.candidates[b->pick(smaller, {.client_ip = ip})].name, m);
  }
}

}  // namespace
}  // namespace vigil::proxy
