// etcd's changes and whole contents come back as states: load balancers put together from their
// own keys and their members', a member event changes that member alone, what vigil wrote before
// members had keys still loads, and values that are not vigil's change nothing.
#include "admin/octavia/etcd_follow.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "admin/octavia/etcd_test_objects.h"
#include "admin/octavia/store_json.h"

namespace vigil::admin {
namespace {

using Ev = etcd::Event::Kind;

using namespace etcd_test;  // NOLINT: the objects every test here builds

ApiState with(std::initializer_list<ApiLoadBalancer> lbs) {
  ApiState s;
  for (const ApiLoadBalancer& l : lbs) s.loadbalancers.push_back(l);
  return s;
}

etcd::KeyValue kv(std::string key, std::string value, int64_t created, int64_t modified) {
  return {.key = std::move(key),
          .value = std::move(value),
          .create_revision = created,
          .mod_revision = modified,
          .version = 1};
}

// What etcd holds of `l` as one transaction at `rev` wrote it.
std::vector<etcd::KeyValue> kvs_of(const ApiLoadBalancer& l, int64_t rev) {
  std::vector<etcd::KeyValue> out;
  for (const etcd::Op& op : puts_of(l, kPrefix)) out.push_back(kv(op.key, op.value, rev, rev));
  return out;
}

Revisions revisions_of(const std::vector<etcd::KeyValue>& kvs) {
  Revisions r;
  for (const etcd::KeyValue& k : kvs) r[k.key] = k.mod_revision;
  return r;
}

etcd::Event put(etcd::KeyValue k) { return {.kind = Ev::kPut, .kv = std::move(k)}; }
etcd::Event gone(std::string key, int64_t rev) {
  return {.kind = Ev::kDelete, .kv = {.key = std::move(key), .mod_revision = rev}};
}

etcd::KeyValue member_kv(const std::string& l, int i, int64_t rev, std::string name = "") {
  return kv(member_key(kPrefix, l, kPool, member_id(i)), member_to_json(member(i, name)), rev, rev);
}

std::vector<std::string> names(const ApiState& s) {
  std::vector<std::string> out;
  for (const ApiLoadBalancer& l : s.loadbalancers) out.push_back(l.name);
  return out;
}

std::vector<std::string> member_names(const ApiState& s, size_t i = 0) {
  std::vector<std::string> out;
  for (const ApiMember& m : s.loadbalancers[i].pools[0].members) out.push_back(m.name);
  return out;
}

TEST(EtcdFollow, AMembersEventChangesThatMemberAloneAndTheNodesOwnAreSkipped) {
  const ApiState state = with({lb(kA, "a", 2)});
  const Revisions known = revisions_of(kvs_of(state.loadbalancers[0], 5));
  const Followed f = follow_events(
      state, known,
      {put(member_kv(kA, 0, 5, "stale: its own")), put(member_kv(kA, 1, 8, "renamed")),
       put(member_kv(kA, 2, 8, "added")), put(kv(pool_key(kPrefix, kA, kPool), "", 2, 8)),
       put(kv(marker_key(kPrefix), std::string(kMarkerValue), 1, 8))},
      kPrefix);
  EXPECT_TRUE(f.problems.empty());
  EXPECT_EQ(member_names(f.next), (std::vector<std::string>{"", "renamed", "added"}));
  EXPECT_EQ(f.changed, 1u);
  EXPECT_EQ(f.revisions.at(member_key(kPrefix, kA, kPool, member_id(2))), 8);
  EXPECT_EQ(f.revisions.at(pool_key(kPrefix, kA, kPool)), 8);

  const Followed deleted = follow_events(f.next, f.revisions,
                                         {gone(member_key(kPrefix, kA, kPool, member_id(0)), 9),
                                          gone(member_key(kPrefix, kA, kPool, member_id(1)), 9)},
                                         kPrefix);
  EXPECT_EQ(member_names(deleted.next), (std::vector<std::string>{"added"}));
  EXPECT_FALSE(deleted.revisions.contains(member_key(kPrefix, kA, kPool, member_id(0))));
}

TEST(EtcdFollow, ALoadBalancersPutKeepsTheMembersThatHaveKeys) {
  const ApiState state = with({lb(kA, "a", 2)});
  const Revisions known = revisions_of(kvs_of(state.loadbalancers[0], 5));
  const Followed f = follow_events(
      state, known, {put(kv(lb_key(kPrefix, kA), lb_shell_to_json(lb(kA, "a2")), 5, 9))}, kPrefix);
  EXPECT_EQ(names(f.next), (std::vector<std::string>{"a2"}));
  EXPECT_EQ(f.next.loadbalancers[0].pools[0].members, state.loadbalancers[0].pools[0].members);
}

TEST(EtcdFollow, ANewLoadBalancerComesWithItsMembersWhateverTheOrderOfTheEvents) {
  // Its own key last: the members' keys were put in the same transaction.
  std::vector<etcd::Event> events;
  const std::vector<etcd::KeyValue> kvs = kvs_of(lb(kB, "b", 2), 4);
  for (size_t i = 1; i <= kvs.size(); ++i) events.push_back(put(kvs[i % kvs.size()]));
  const Followed f = follow_events({}, {}, events, kPrefix);
  EXPECT_TRUE(f.problems.empty()) << f.problems[0];
  ASSERT_EQ(names(f.next), (std::vector<std::string>{"b"}));
  EXPECT_EQ(f.next.loadbalancers[0], lb(kB, "b", 2));
  EXPECT_EQ(f.changed, 1u);

  // Deleted: its key, and its members' and pools' in the same transaction.
  const Followed deleted =
      follow_events(f.next, f.revisions,
                    {gone(member_key(kPrefix, kB, kPool, member_id(0)), 6),
                     gone(lb_key(kPrefix, kB), 6), gone(pool_key(kPrefix, kB, kPool), 6)},
                    kPrefix);
  EXPECT_TRUE(deleted.next.loadbalancers.empty());
  EXPECT_TRUE(deleted.problems.empty());
  EXPECT_TRUE(deleted.revisions.empty());
}

// Another node's write that moved the members to keys of their own changes nothing here.
TEST(EtcdFollow, ALoadBalancerThatEndsAsItWasStaysShared) {
  const ApiState state = with({lb(kA, "a", 2)});
  const Revisions whole = {{lb_key(kPrefix, kA), 3}};  // the members inside its value
  std::vector<etcd::Event> events;
  for (const etcd::KeyValue& k : kvs_of(state.loadbalancers[0], 6)) events.push_back(put(k));
  const Followed f = follow_events(state, whole, events, kPrefix);
  EXPECT_EQ(f.changed, 0u);
  EXPECT_TRUE(f.next.loadbalancers.shares(0, state.loadbalancers, 0));
  EXPECT_EQ(f.revisions.at(member_key(kPrefix, kA, kPool, member_id(1))), 6);
}

TEST(EtcdFollow, ValuesThatAreNotVigilsChangeNothingAndAreNamed) {
  const ApiState state = with({lb(kA, "a", 1)});
  const Revisions known = revisions_of(kvs_of(state.loadbalancers[0], 2));
  std::string bad_member = member_to_json(member(0));
  bad_member.replace(bad_member.find("10.0.0.1"), 8, "not-an-ip");
  const std::vector<etcd::Event> events = {
      put(kv(lb_key(kPrefix, kA), "garbage", 2, 3)),
      put(kv(lb_key(kPrefix, kA), lb_shell_to_json(lb(kB, "b")), 2, 4)),
      put(kv(member_key(kPrefix, kA, kPool, member_id(0)), bad_member, 2, 5)),
      put(kv(member_key(kPrefix, kA, kPool, member_id(9)), member_to_json(member(0)), 6, 6)),
      put(member_kv(kB, 0, 7)),
      put(kv("/vigil/something", "x", 8, 8)),
  };
  const Followed f = follow_events(state, known, events, kPrefix);
  ASSERT_EQ(f.problems.size(), 6u);
  EXPECT_NE(f.problems[0].find("/vigil/loadbalancers/" + kA + ": not valid JSON"),
            std::string::npos)
      << f.problems[0];
  EXPECT_NE(f.problems[1].find("it holds the load balancer " + kB), std::string::npos)
      << f.problems[1];
  EXPECT_NE(f.problems[2].find("address"), std::string::npos) << f.problems[2];
  EXPECT_NE(f.problems[3].find("it holds the member " + member_id(0)), std::string::npos)
      << f.problems[3];
  EXPECT_NE(f.problems[4].find("which this node does not hold"), std::string::npos)
      << f.problems[4];
  EXPECT_NE(f.problems[5].find("not a key vigil writes"), std::string::npos) << f.problems[5];
  EXPECT_EQ(f.changed, 0u);
  EXPECT_TRUE(f.next.loadbalancers.shares(0, state.loadbalancers, 0));
  EXPECT_EQ(f.revisions, known);
}

TEST(EtcdFollow, AWholeReadPutsLoadBalancersTogetherFromTheirMembersKeys) {
  std::vector<etcd::KeyValue> kvs = kvs_of(lb(kB, "b", 0), 3);
  // Members in the order their keys were made, whatever their ids' order.
  kvs.push_back(member_kv(kB, 5, 9, "second"));
  kvs.push_back(member_kv(kB, 7, 4, "first"));
  kvs.push_back(kv(marker_key(kPrefix), std::string(kMarkerValue), 1, 9));
  const Followed f = follow_range({}, {}, kvs, kPrefix);
  EXPECT_TRUE(f.problems.empty()) << f.problems[0];
  ASSERT_EQ(names(f.next), (std::vector<std::string>{"b"}));
  EXPECT_EQ(member_names(f.next), (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(f.revisions.at(member_key(kPrefix, kB, kPool, member_id(5))), 9);
  EXPECT_EQ(f.changed, 1u);
}

// Written by vigil before members had keys: a load balancer's value holds its members.
TEST(EtcdFollow, AWholeReadTakesTheMembersInsideAnOldLoadBalancersValue) {
  const ApiLoadBalancer old = lb(kA, "a", 2);
  std::vector<etcd::KeyValue> kvs = {kv(lb_key(kPrefix, kA), lb_to_json(old), 2, 2),
                                     kv(marker_key(kPrefix), std::string(kMarkerValue), 1, 2)};
  const Followed f = follow_range({}, {}, kvs, kPrefix);
  EXPECT_TRUE(f.problems.empty()) << f.problems[0];
  ASSERT_EQ(f.next.loadbalancers.size(), 1u);
  EXPECT_EQ(f.next.loadbalancers[0], old);
  EXPECT_EQ(f.revisions, (Revisions{{lb_key(kPrefix, kA), 2}}));
  // Its events too, as an older vigil node writes it.
  const Followed e = follow_events({}, {}, {put(kvs[0])}, kPrefix);
  EXPECT_EQ(e.next.loadbalancers[0], old);
}

TEST(EtcdFollow, AWholeReadKeepsWhatIsKnownOrHeldAlreadyAndRemovesTheRest) {
  const ApiState state = with({lb(kA, "a", 2), lb(kB, "b", 1)});
  std::vector<etcd::KeyValue> kvs = kvs_of(state.loadbalancers[0], 2);
  const Revisions known = revisions_of(kvs);
  // Known at these revisions: kept, not even read.
  kvs[0].value = "ignored: its revision is known";
  const Followed f = follow_range(state, known, kvs, kPrefix);
  EXPECT_TRUE(f.problems.empty()) << f.problems[0];
  EXPECT_EQ(names(f.next), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(f.next.loadbalancers.shares(0, state.loadbalancers, 0));
  EXPECT_EQ(f.changed, 1u);  // b removed
  EXPECT_EQ(f.revisions, known);

  // A member's key gone since: that load balancer is read again.
  kvs = kvs_of(state.loadbalancers[0], 2);
  std::erase_if(kvs, [](const etcd::KeyValue& k) { return k.key.ends_with(member_id(1)); });
  const Followed shrunk = follow_range(state, known, kvs, kPrefix);
  EXPECT_EQ(shrunk.next.loadbalancers[0].pools[0].members.size(), 1u);

  // At start nothing is known; what the node holds already is not made anew.
  const Followed start = follow_range(state, {}, kvs_of(state.loadbalancers[0], 2), kPrefix);
  EXPECT_TRUE(start.next.loadbalancers.shares(0, state.loadbalancers, 0));
  EXPECT_EQ(start.revisions, known);
}

TEST(EtcdFollow, AWholeReadKeepsTheLastGoodVersionOfABrokenValue) {
  const ApiState state = with({lb(kA, "a", 2)});
  std::vector<etcd::KeyValue> kvs = kvs_of(state.loadbalancers[0], 2);
  const Revisions known = revisions_of(kvs);
  kvs[0] = kv(lb_key(kPrefix, kA), "{", 2, 5);
  const Followed f = follow_range(state, known, kvs, kPrefix);
  ASSERT_EQ(f.problems.size(), 1u);
  EXPECT_TRUE(f.next.loadbalancers.shares(0, state.loadbalancers, 0));
  EXPECT_EQ(f.revisions.at(lb_key(kPrefix, kA)), 2);

  // A broken member: the last good version of it stays, the rest is read.
  kvs = kvs_of(state.loadbalancers[0], 2);
  kvs[0] = kv(lb_key(kPrefix, kA), lb_shell_to_json(lb(kA, "a2")), 2, 6);
  kvs[2].value = "[]";
  kvs[2].mod_revision = 6;
  const Followed m = follow_range(state, known, kvs, kPrefix);
  ASSERT_EQ(m.problems.size(), 1u);
  EXPECT_EQ(names(m.next), (std::vector<std::string>{"a2"}));
  EXPECT_EQ(m.next.loadbalancers[0].pools[0].members, state.loadbalancers[0].pools[0].members);
  EXPECT_EQ(m.revisions.at(kvs[2].key), 2);
}

TEST(EtcdFollow, MembersWithoutTheirLoadBalancerOrPoolAreNamed) {
  std::vector<etcd::KeyValue> kvs = kvs_of(lb(kA, "a"), 2);
  kvs.push_back(member_kv(kB, 0, 3));
  kvs.push_back(
      kv(member_key(kPrefix, kA, "other-pool", member_id(1)), member_to_json(member(1)), 3, 3));
  const Followed f = follow_range({}, {}, kvs, kPrefix);
  ASSERT_EQ(f.problems.size(), 2u);
  EXPECT_NE(f.problems[0].find("which etcd does not hold"), std::string::npos) << f.problems[0];
  EXPECT_NE(f.problems[1].find("which its load balancer does not hold"), std::string::npos)
      << f.problems[1];
  EXPECT_TRUE(f.next.loadbalancers[0].pools[0].members.empty());
}

}  // namespace
}  // namespace vigil::admin
