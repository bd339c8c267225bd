// The load balancers in etcd: a write is a put or delete of each one it changes, guarded by the
// revision known; etcd's changes and whole contents come back as states, and values that are not
// vigil's change nothing.
#include "admin/octavia/etcd_layout.h"

#include <gtest/gtest.h>

#include "admin/octavia/store_json.h"

namespace vigil::admin {
namespace {

constexpr std::string_view kPrefix = "/vigil/";
const std::string kA = "aaaaaaaa-0000-4000-8000-000000000001";
const std::string kB = "bbbbbbbb-0000-4000-8000-000000000002";

ApiLoadBalancer lb(const std::string& id, const std::string& name) {
  ApiLoadBalancer out;
  out.id = id;
  out.name = name;
  out.vip_address = "127.0.0.1";
  out.created_at = out.updated_at = "2026-12-05T09:00:00.000001";
  return out;
}

etcd::KeyValue kv(const ApiLoadBalancer& l, int64_t created, int64_t modified) {
  return {.key = lb_key(kPrefix, l.id),
          .value = lb_to_json(l),
          .create_revision = created,
          .mod_revision = modified,
          .version = 1};
}

std::vector<std::string> names(const ApiState& s) {
  std::vector<std::string> out;
  for (const ApiLoadBalancer& l : s.loadbalancers) out.push_back(l.name);
  return out;
}

TEST(EtcdLayout, KeysNameTheLoadBalancer) {
  EXPECT_EQ(lb_key(kPrefix, kA), "/vigil/loadbalancers/" + kA);
  EXPECT_EQ(lb_id_of(kPrefix, "/vigil/loadbalancers/" + kA), kA);
  EXPECT_EQ(lb_id_of(kPrefix, "/vigil/loadbalancers/"), std::nullopt);
  EXPECT_EQ(lb_id_of(kPrefix, "/vigil/loadbalancers/a/b"), std::nullopt);
  EXPECT_EQ(lb_id_of(kPrefix, "/other/loadbalancers/" + kA), std::nullopt);
  EXPECT_EQ(lb_id_of(kPrefix, marker_key(kPrefix)), std::nullopt);
}

TEST(EtcdLayout, AWritePutsWhatChangedAndDeletesWhatWentEachGuarded) {
  ApiState before;
  before.loadbalancers.push_back(lb(kA, "a"));
  before.loadbalancers.push_back(lb(kB, "b"));
  ApiState after = before;
  after.loadbalancers.edit(0).name = "a2";
  after.loadbalancers.erase(1);
  const std::string kC = "cccccccc-0000-4000-8000-000000000003";
  after.loadbalancers.push_back(lb(kC, "c"));
  const WritePlan plan = plan_write(before, after, {{kA, 7}, {kB, 9}}, kPrefix);
  ASSERT_EQ(plan.compares.size(), 3u);
  EXPECT_EQ(plan.compares[0].key, lb_key(kPrefix, kA));
  EXPECT_EQ(plan.compares[0].mod_revision, 7);
  EXPECT_EQ(plan.compares[1].key, lb_key(kPrefix, kC));
  EXPECT_EQ(plan.compares[1].mod_revision, 0);  // a new one must not exist yet
  EXPECT_EQ(plan.compares[2].key, lb_key(kPrefix, kB));
  EXPECT_EQ(plan.compares[2].mod_revision, 9);
  ASSERT_EQ(plan.ops.size(), 4u);
  EXPECT_EQ(plan.ops[0].kind, etcd::Op::Kind::kPut);
  EXPECT_EQ(plan.ops[0].value, lb_to_json(after.loadbalancers[0]));
  EXPECT_EQ(plan.ops[2].kind, etcd::Op::Kind::kDelete);
  EXPECT_EQ(plan.ops[3].key, marker_key(kPrefix));
  EXPECT_EQ(plan.put_ids, (std::vector<std::string>{kA, kC}));
  EXPECT_EQ(plan.deleted_ids, (std::vector<std::string>{kB}));
}

TEST(EtcdLayout, AWriteThatChangesNoLoadBalancerWritesNothing) {
  ApiState before;
  before.loadbalancers.push_back(lb(kA, "a"));
  ApiState after = before;
  after.member_overrides.insert_or_assign("m", model::AdminOverride{});
  EXPECT_TRUE(plan_write(before, after, {{kA, 7}}, kPrefix).ops.empty());
}

TEST(EtcdLayout, EventsNewerThanKnownChangeTheStateOthersAreSkipped) {
  ApiState state;
  state.loadbalancers.push_back(lb(kA, "a"));
  ApiLoadBalancer a2 = lb(kA, "a2");
  const std::vector<etcd::Event> events = {
      {.kind = etcd::Event::Kind::kPut, .kv = kv(lb(kA, "stale"), 3, 5)},  // this node's own
      {.kind = etcd::Event::Kind::kPut, .kv = kv(a2, 3, 8)},
      {.kind = etcd::Event::Kind::kPut, .kv = kv(lb(kB, "b"), 9, 9)},
      {.kind = etcd::Event::Kind::kPut,
       .kv = {.key = marker_key(kPrefix), .value = "{}", .mod_revision = 9}},
  };
  const Followed f = follow_events(state, {{kA, 5}}, events, kPrefix);
  EXPECT_TRUE(f.problems.empty());
  EXPECT_EQ(names(f.next), (std::vector<std::string>{"a2", "b"}));
  EXPECT_EQ(f.revisions.at(kA), 8);
  EXPECT_EQ(f.revisions.at(kB), 9);
  EXPECT_EQ(f.changed, 2u);

  const Followed gone = follow_events(f.next, f.revisions,
                                      {{.kind = etcd::Event::Kind::kDelete,
                                        .kv = {.key = lb_key(kPrefix, kA), .mod_revision = 10}}},
                                      kPrefix);
  EXPECT_EQ(names(gone.next), (std::vector<std::string>{"b"}));
  EXPECT_FALSE(gone.revisions.contains(kA));
}

TEST(EtcdLayout, ValuesThatAreNotVigilsChangeNothingAndAreNamed) {
  ApiState state;
  state.loadbalancers.push_back(lb(kA, "a"));
  etcd::KeyValue other_id = kv(lb(kB, "b"), 4, 4);
  other_id.key = lb_key(kPrefix, kA);
  ApiLoadBalancer bad_port = lb(kB, "b");
  std::string bad_value = lb_to_json(bad_port);
  bad_value.replace(bad_value.find("127.0.0.1"), 9, "not-an-ip");
  const std::vector<etcd::Event> events = {
      {.kind = etcd::Event::Kind::kPut,
       .kv = {.key = lb_key(kPrefix, kB), .value = "garbage", .mod_revision = 3}},
      {.kind = etcd::Event::Kind::kPut, .kv = other_id},
      {.kind = etcd::Event::Kind::kPut,
       .kv = {.key = lb_key(kPrefix, kB), .value = bad_value, .mod_revision = 5}},
      {.kind = etcd::Event::Kind::kPut,
       .kv = {.key = "/vigil/something", .value = "x", .mod_revision = 6}},
  };
  const Followed f = follow_events(state, {{kA, 2}}, events, kPrefix);
  ASSERT_EQ(f.problems.size(), 4u);
  EXPECT_NE(f.problems[0].find("/vigil/loadbalancers/" + kB + ": not valid JSON"),
            std::string::npos)
      << f.problems[0];
  EXPECT_NE(f.problems[1].find("it holds the load balancer " + kB), std::string::npos)
      << f.problems[1];
  EXPECT_NE(f.problems[2].find("vip_address"), std::string::npos) << f.problems[2];
  EXPECT_NE(f.problems[3].find("not a key vigil writes"), std::string::npos) << f.problems[3];
  EXPECT_EQ(names(f.next), (std::vector<std::string>{"a"}));
  EXPECT_EQ(f.changed, 0u);
  EXPECT_EQ(f.revisions.at(kA), 2);
}

TEST(EtcdLayout, AWholeReadKeepsWhatIsKnownAddsInCreationOrderAndRemovesTheRest) {
  ApiState state;
  state.loadbalancers.push_back(lb(kA, "a"));
  state.loadbalancers.push_back(lb(kB, "b"));
  const std::string kC = "cccccccc-0000-4000-8000-000000000003";
  const std::string kD = "dddddddd-0000-4000-8000-000000000004";
  // etcd lists by key; the creation order is by create_revision.
  const std::vector<etcd::KeyValue> kvs = {
      kv(lb(kA, "ignored: its revision is known"), 2, 2),
      kv(lb(kC, "c"), 12, 12),
      kv(lb(kD, "d"), 11, 11),
      {.key = marker_key(kPrefix), .value = std::string(kMarkerValue), .mod_revision = 12},
  };
  const Followed f = follow_range(state, {{kA, 2}, {kB, 3}}, kvs, kPrefix);
  EXPECT_TRUE(f.problems.empty());
  EXPECT_EQ(names(f.next), (std::vector<std::string>{"a", "d", "c"}));
  EXPECT_TRUE(f.next.loadbalancers.shares(0, state.loadbalancers, 0));
  EXPECT_EQ(f.changed, 3u);  // b removed, d and c added
  EXPECT_EQ(f.revisions, (Revisions{{kA, 2}, {kC, 12}, {kD, 11}}));
}

TEST(EtcdLayout, AtStartWhatTheNodeHoldsAlreadyIsNotMadeAnew) {
  ApiState state;
  state.loadbalancers.push_back(lb(kA, "a"));
  const Followed f = follow_range(state, {}, {kv(lb(kA, "a"), 2, 7)}, kPrefix);
  EXPECT_TRUE(f.next.loadbalancers.shares(0, state.loadbalancers, 0));
  EXPECT_EQ(f.changed, 0u);
  EXPECT_EQ(f.revisions.at(kA), 7);
}

TEST(EtcdLayout, AWholeReadKeepsTheLastGoodVersionOfABrokenValue) {
  ApiState state;
  state.loadbalancers.push_back(lb(kA, "a"));
  const Followed f = follow_range(
      state, {{kA, 2}}, {{.key = lb_key(kPrefix, kA), .value = "{", .mod_revision = 5}}, kPrefix);
  ASSERT_EQ(f.problems.size(), 1u);
  EXPECT_EQ(names(f.next), (std::vector<std::string>{"a"}));
  EXPECT_EQ(f.revisions.at(kA), 2);
  EXPECT_EQ(f.changed, 0u);
}

}  // namespace
}  // namespace vigil::admin
