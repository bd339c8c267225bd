// The API's state is copied on write: a copy shares every load balancer until a lookup to change
// one (or edit()) makes that one its own.
#include "admin/octavia/objects.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace vigil::admin {
namespace {

ApiState two_load_balancers() {
  ApiState s;
  for (const char* id : {"lb-1", "lb-2"}) {
    ApiLoadBalancer lb;
    lb.id = id;
    ApiPool pool;
    pool.id = std::string(id) + "-pool";
    ApiMember m;
    m.id = std::string(id) + "-member";
    m.weight = 1;
    pool.members.push_back(m);
    lb.pools.push_back(pool);
    s.loadbalancers.push_back(lb);
  }
  return s;
}

TEST(ApiStateCopy, AChangeOfACopyIsTheCopysAloneAndTheOthersStayShared) {
  const ApiState original = two_load_balancers();
  ApiState copy = original;
  EXPECT_TRUE(copy.loadbalancers.shares(0, original.loadbalancers, 0));
  EXPECT_TRUE(copy.loadbalancers.shares(1, original.loadbalancers, 1));

  auto found = copy.find_member("lb-2-member");
  ASSERT_TRUE(found);
  found.item->weight = 9;
  EXPECT_EQ(original.loadbalancers[1].pools[0].members[0].weight, 1) << "the original unchanged";
  EXPECT_EQ(copy.loadbalancers[1].pools[0].members[0].weight, 9);
  EXPECT_FALSE(copy.loadbalancers.shares(1, original.loadbalancers, 1));
  EXPECT_TRUE(copy.loadbalancers.shares(0, original.loadbalancers, 0)) << "not copied";

  // Once its own, it is not copied again: the pointers an op holds stay valid.
  EXPECT_EQ(copy.find_pool("lb-2-pool").lb, found.lb);
  EXPECT_EQ(&copy.loadbalancers.edit(1), found.lb);
}

// More load balancers than fit in a chunk: a copy's changes, additions and removals, at the
// chunks' edges too, never show in the original, and what the copy did not touch stays shared.
TEST(ApiStateCopy, CopiesShareChunksUntilEachIsChanged) {
  constexpr size_t kN = 3 * LoadBalancers::kChunk + 5;
  ApiState original;
  for (size_t i = 0; i < kN; ++i) {
    ApiLoadBalancer lb;
    lb.id = "lb-" + std::to_string(i);
    original.loadbalancers.push_back(lb);
  }
  const auto ids = [](const LoadBalancers& lbs) {
    std::vector<std::string> out;
    for (const ApiLoadBalancer& lb : lbs) out.push_back(lb.id);
    return out;
  };
  const std::vector<std::string> before = ids(original.loadbalancers);

  ApiState copy = original;
  copy.loadbalancers.edit(LoadBalancers::kChunk).name = "changed";  // the first of chunk two
  copy.loadbalancers.push_back(ApiLoadBalancer{});                  // onto the shared last chunk
  copy.loadbalancers.erase(LoadBalancers::kChunk - 1);              // the last of chunk one
  copy.loadbalancers.erase(0);

  EXPECT_EQ(ids(original.loadbalancers), before) << "the original unchanged";
  EXPECT_EQ(original.loadbalancers[LoadBalancers::kChunk].name, "");
  std::vector<std::string> want(before.begin() + 1, before.end());
  want.erase(want.begin() + LoadBalancers::kChunk - 2);
  want.emplace_back();
  EXPECT_EQ(ids(copy.loadbalancers), want);
  EXPECT_EQ(copy.loadbalancers.size(), kN - 1);
  EXPECT_EQ(copy.loadbalancers[LoadBalancers::kChunk - 2].name, "changed");
  EXPECT_EQ(copy.loadbalancers.back().id, "");
  // Moved down a place, the others are still the same objects as the original's.
  EXPECT_TRUE(copy.loadbalancers.shares(5, original.loadbalancers, 6));
  EXPECT_TRUE(copy.loadbalancers.shares(kN - 3, original.loadbalancers, kN - 1));
  EXPECT_FALSE(copy.loadbalancers.shares(LoadBalancers::kChunk - 2, original.loadbalancers,
                                         LoadBalancers::kChunk));

  // Removed down to nothing and grown again, the copy is still its own.
  while (!copy.loadbalancers.empty()) copy.loadbalancers.erase(copy.loadbalancers.size() - 1);
  EXPECT_EQ(copy.loadbalancers.begin(), copy.loadbalancers.end());
  copy.loadbalancers.push_back(ApiLoadBalancer{});
  EXPECT_EQ(copy.loadbalancers.size(), 1u);
  EXPECT_EQ(ids(original.loadbalancers), before);
  EXPECT_THROW(copy.loadbalancers.at(1), std::out_of_range);
}

TEST(ApiStateCopy, ConstLookupsCopyNothing) {
  const ApiState original = two_load_balancers();
  const ApiState copy = original;
  ASSERT_NE(copy.holder("lb-1-member"), nullptr);
  EXPECT_EQ(copy.holder("lb-1-member")->id, "lb-1");
  EXPECT_EQ(copy.holder("lb-2-pool")->id, "lb-2");
  EXPECT_EQ(copy.holder("lb-2")->id, "lb-2");
  EXPECT_EQ(copy.holder("nothing"), nullptr);
  EXPECT_EQ(copy.holder("lb-2-pool", "pools")->id, "lb-2") << "of the kind named";
  EXPECT_EQ(copy.holder("lb-2-pool", "members"), nullptr) << "of no other kind";
  EXPECT_EQ(copy.holder("lb-1-member", "members")->id, "lb-1");
  EXPECT_TRUE(copy.contains("lb-1-pool"));
  EXPECT_NE(copy.lb("lb-1"), nullptr);
  ASSERT_NE(copy.member("lb-2-member"), nullptr);
  EXPECT_EQ(copy.member("lb-2-member")->weight, 1);
  EXPECT_EQ(copy.pool("lb-1-pool"), &original.loadbalancers[0].pools[0]) << "the shared object";
  EXPECT_EQ(copy.listener("lb-1-pool"), nullptr);
  EXPECT_EQ(copy.monitor("lb-1-pool"), nullptr);
  EXPECT_TRUE(copy.loadbalancers.shares(0, original.loadbalancers, 0));
  EXPECT_TRUE(copy.loadbalancers.shares(1, original.loadbalancers, 1));
}

TEST(ApiStateCopy, ALookupThatFindsNothingCopiesNothing) {
  const ApiState original = two_load_balancers();
  ApiState copy = original;
  EXPECT_FALSE(copy.find_member("nothing"));
  EXPECT_FALSE(copy.find_monitor("lb-1-member")) << "a member is no monitor";
  EXPECT_TRUE(copy.loadbalancers.shares(0, original.loadbalancers, 0));
  EXPECT_TRUE(copy.loadbalancers.shares(1, original.loadbalancers, 1));
}

TEST(ApiIndex, FindsWhatTheWalkingLookupsFind) {
  ApiState s = two_load_balancers();
  s.loadbalancers.edit(1).pools[0].healthmonitor = ApiHealthMonitor{};
  s.loadbalancers.edit(1).pools[0].healthmonitor->id = "lb-2-monitor";
  ApiListener l;
  l.id = "lb-1-listener";
  s.loadbalancers.edit(0).listeners.push_back(l);
  const ApiIndex index(s);
  for (const char* id : {"lb-1", "lb-2", "lb-1-listener", "lb-1-pool", "lb-2-pool", "lb-1-member",
                         "lb-2-member", "lb-2-monitor", "nothing"}) {
    EXPECT_EQ(index.lb(id), s.lb(id)) << id;
    EXPECT_EQ(index.listener(id), s.listener(id)) << id;
    EXPECT_EQ(index.pool(id), s.pool(id)) << id;
    EXPECT_EQ(index.member(id), s.member(id)) << id;
    EXPECT_EQ(index.monitor(id), s.monitor(id)) << id;
  }
  EXPECT_NE(index.monitor("lb-2-monitor"), nullptr);
  EXPECT_NE(index.listener("lb-1-listener"), nullptr);
}

// The hints holder_of() tries are only hints: whatever happened since they were made (load
// balancers deleted before others, objects deleted, an id deleted and made again elsewhere,
// copies changed apart, in the state they were made for or in an older one), every lookup gives
// what walking every load balancer gives.
TEST(LoadBalancersHints, LookupsAgreeWithAWalkWhateverChangedSince) {
  std::mt19937 random(20261202);  // fixed: a failure repeats
  const auto pick = [&](size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(random);
  };
  int next_id = 0;
  const auto new_id = [&] { return "id-" + std::to_string(next_id++); };
  std::vector<std::string> ever;  // every id made, the deleted ones too
  std::vector<std::string> deleted;
  const auto walk = [](const ApiState& s, std::string_view id) -> const ApiLoadBalancer* {
    for (const ApiLoadBalancer& lb : s.loadbalancers) {
      if (lb.id == id) return &lb;
      for (const ApiPool& p : lb.pools) {
        if (p.id == id) return &lb;
        for (const ApiMember& m : p.members) {
          if (m.id == id) return &lb;
        }
      }
    }
    return nullptr;
  };
  ApiState committed;
  for (int round = 0; round < 200; ++round) {
    ApiState s = committed;  // a write's copy
    for (int change = 0; change < 3; ++change) {
      const size_t what = pick(10);
      if (what < 3 || s.loadbalancers.empty()) {
        ApiLoadBalancer lb;
        lb.id = new_id();
        ApiPool pool;
        pool.id = new_id();
        ever.push_back(lb.id);
        ever.push_back(pool.id);
        lb.pools.push_back(pool);
        s.loadbalancers.push_back(lb);
      } else if (what < 4) {
        s.loadbalancers.erase(pick(s.loadbalancers.size()));
      } else if (what < 8) {
        ApiPool& pool = s.loadbalancers.edit(pick(s.loadbalancers.size())).pools[0];
        ApiMember m;
        // Now and then the id of the member deleted last, made again, maybe in another load
        // balancer (an API client may ask for an id).
        m.id = pick(2) == 0 && !deleted.empty() ? deleted.back() : new_id();
        if (walk(s, m.id) == nullptr) pool.members.push_back(m);
        ever.push_back(m.id);
      } else {
        auto& members = s.loadbalancers.edit(pick(s.loadbalancers.size())).pools[0].members;
        if (!members.empty()) {
          const auto gone = members.begin() + static_cast<long>(pick(members.size()));
          deleted.push_back(gone->id);
          members.erase(gone);
        }
      }
      for (int k = 0; k < 20; ++k) {  // before the state is remembered: from changed_
        const std::string& id =
            k < 5 ? ever[ever.size() - 1 - k % ever.size()] : ever[pick(ever.size())];
        ASSERT_EQ(s.holder(id), walk(s, id)) << "round " << round << ", id " << id;
      }
    }
    if (pick(5) == 0) continue;         // a write that failed: the committed state stays
    const ApiState before = committed;  // an older state sharing the hints
    committed = s;
    committed.loadbalancers.remember();
    for (int k = 0; k < 60; ++k) {
      const std::string& id = k < 10 && k < int(deleted.size()) ? deleted[deleted.size() - 1 - k]
                                                                : ever[pick(ever.size())];
      ASSERT_EQ(committed.holder(id), walk(committed, id)) << "round " << round << ", id " << id;
      ASSERT_EQ(before.holder(id), walk(before, id)) << "round " << round << ", id " << id;
    }
  }
  EXPECT_GT(committed.loadbalancers.size(), 10u) << "the test made a state worth looking in";
}

// An id the hints never saw is in no load balancer that is unchanged since they were made; one
// in a load balancer changed since is found there.
TEST(LoadBalancersHints, FindsObjectsAddedSinceAndNotThoseNeverMade) {
  ApiState s = two_load_balancers();
  s.loadbalancers.remember();
  ApiState copy = s;
  ApiMember m;
  m.id = "lb-1-member-2";
  copy.find_pool("lb-1-pool").item->members.push_back(m);
  EXPECT_EQ(copy.holder("lb-1-member-2")->id, "lb-1");
  EXPECT_EQ(s.holder("lb-1-member-2"), nullptr) << "the original has no such member";
  EXPECT_EQ(copy.holder("never"), nullptr);
  copy.loadbalancers.erase(0);
  EXPECT_EQ(copy.holder("lb-2-member")->id, "lb-2") << "moved down by the erase";
  EXPECT_EQ(copy.holder("lb-1-member"), nullptr);
  EXPECT_EQ(s.holder("lb-1-member")->id, "lb-1") << "still in the original";
  EXPECT_EQ(s.holder("lb-2-member")->id, "lb-2");
}

// Deleted objects' hints go when the hints are made anew, so that a store that makes and deletes
// load balancers for months does not grow.
TEST(LoadBalancersHints, DeletedObjectsDoNotPileUp) {
  ApiState s = two_load_balancers();
  s.loadbalancers.remember();
  for (int i = 0; i < 10000; ++i) {
    ApiLoadBalancer lb;
    lb.id = "churn-" + std::to_string(i);
    s.loadbalancers.push_back(lb);
    s.loadbalancers.remember();
    s.loadbalancers.erase(s.loadbalancers.size() - 1);
    s.loadbalancers.remember();
    ASSERT_LE(s.loadbalancers.hinted(), 2 * 6 + 1024 + 1) << "after " << i;
  }
  EXPECT_EQ(s.holder("lb-2-member")->id, "lb-2");
  EXPECT_EQ(s.holder("churn-9999"), nullptr);
}

}  // namespace
}  // namespace vigil::admin
