// Two nodes sharing the Octavia API's objects through one etcd (a fake that keeps revisions,
// guards transactions and feeds watches, and answers only when the test delivers): a write on
// one is served by the other; two writes to one load balancer at once cannot both win; an etcd
// that does not answer refuses writes and leaves the running state alone, and everything catches
// up when it is back, after a compaction too; a node never takes an empty etcd for "delete
// everything"; a watch that silently stopped is started again. On a manual clock.
#include "admin/octavia/shared_store.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <deque>
#include <map>

#include "admin/fake_daemon_test.h"
#include "admin/octavia/local_network.h"
#include "admin/octavia/store_json.h"
#include "admin/routes.h"
#include "testing/manual_clock.h"
#include "testing/manual_timer.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

constexpr std::string_view kPrefix = "/vigil/";

// etcd as the store sees it: keys with revisions, transactions evaluated when delivered, watches
// fed from the history, compaction, and an outage.
class FakeEtcd {
 public:
  struct Watcher {
    std::string prefix;
    std::function<void(etcd::WatchBatch)> on_batch;
    std::function<void(etcd::WatchEnd)> on_end;
    bool live = true;
    bool deaf = false;  // the stream stays open but brings nothing (a dead member's connection)
  };

  bool up = true;
  int64_t revision = 1;
  int64_t compacted = 0;
  std::map<std::string, etcd::KeyValue> keys;
  std::vector<std::pair<int64_t, etcd::Event>> history;
  std::vector<std::shared_ptr<Watcher>> watchers;
  std::deque<std::function<void()>> pending;

  // Runs every answer in flight, and those they lead to.
  void deliver() {
    for (int i = 0; i < 10000 && !pending.empty(); ++i) {
      auto f = std::move(pending.front());
      pending.pop_front();
      f();
    }
    ASSERT_TRUE(pending.empty()) << "answers kept coming";
  }

  void stop() {
    up = false;
    for (auto& w : watchers) {
      if (!w->live) continue;
      w->live = false;
      pending.push_back([w] { w->on_end({.error = "connection refused", .compact_revision = 0}); });
    }
  }

  etcd::RangeResult range(const std::string& prefix) const {
    etcd::RangeResult r{.revision = revision, .kvs = {}};
    for (const auto& [k, kv] : keys) {
      if (k.starts_with(prefix)) r.kvs.push_back(kv);
    }
    return r;
  }

  bool txn(const std::vector<etcd::Compare>& compares, const std::vector<etcd::Op>& ops) {
    for (const etcd::Compare& c : compares) {
      const auto it = keys.find(c.key);
      if ((it == keys.end() ? 0 : it->second.mod_revision) != c.mod_revision) return false;
    }
    ++revision;
    std::vector<etcd::Event> events;
    for (const etcd::Op& op : ops) {
      if (op.kind == etcd::Op::Kind::kPut) {
        etcd::KeyValue& kv = keys[op.key];
        if (kv.create_revision == 0) kv.create_revision = revision;
        kv.key = op.key;
        kv.value = op.value;
        kv.mod_revision = revision;
        ++kv.version;
        events.push_back({.kind = etcd::Event::Kind::kPut, .kv = kv});
      } else {
        const bool prefix = op.kind == etcd::Op::Kind::kDeletePrefix;
        for (auto it = keys.lower_bound(op.key); it != keys.end();) {
          if (prefix ? !it->first.starts_with(op.key) : it->first != op.key) break;
          events.push_back({.kind = etcd::Event::Kind::kDelete,
                            .kv = {.key = it->first, .mod_revision = revision}});
          it = keys.erase(it);
        }
      }
    }
    for (const etcd::Event& e : events) history.emplace_back(revision, e);
    for (auto& w : watchers) notify(w, revision, events);
    return true;
  }

  // An operator's (or another program's) write of one key.
  void put_raw(const std::string& key, const std::string& value) {
    txn({}, {{.kind = etcd::Op::Kind::kPut, .key = key, .value = value}});
  }

  void notify(const std::shared_ptr<Watcher>& w, int64_t rev, const std::vector<etcd::Event>& all) {
    if (!w->live || w->deaf) return;
    etcd::WatchBatch batch{.revision = rev, .events = {}};
    for (const etcd::Event& e : all) {
      if (e.kv.key.starts_with(w->prefix)) batch.events.push_back(e);
    }
    if (batch.events.empty()) return;
    pending.push_back([w, batch] {
      if (w->live) w->on_batch(batch);
    });
  }

  void watch(const std::shared_ptr<Watcher>& w, int64_t start) {
    if (!up) {
      w->live = false;
      pending.push_back([w] { w->on_end({.error = "connection refused", .compact_revision = 0}); });
      return;
    }
    if (start <= compacted) {
      w->live = false;
      pending.push_back([w, c = compacted] { w->on_end({.error = {}, .compact_revision = c}); });
      return;
    }
    watchers.push_back(w);
    std::map<int64_t, std::vector<etcd::Event>> missed;
    for (const auto& [rev, e] : history) {
      if (rev >= start) missed[rev].push_back(e);
    }
    for (const auto& [rev, events] : missed) notify(w, rev, events);
  }

  void compact() {
    compacted = revision;
    std::erase_if(history, [&](const auto& h) { return h.first <= compacted; });
  }
};

class FakeKv final : public EtcdKv {
 public:
  explicit FakeKv(FakeEtcd& etcd) : etcd_(etcd) {}
  ~FakeKv() override { cancel_watch(); }

  void range_prefix(std::string prefix,
                    std::function<void(Result<etcd::RangeResult>)> done) override {
    etcd_.pending.push_back([this, prefix, done] {
      if (!etcd_.up) return done(fail("etcd at http://fake:2379: connection refused"));
      done(etcd_.range(prefix));
    });
  }
  void txn(std::vector<etcd::Compare> compares, std::vector<etcd::Op> ops,
           std::function<void(Result<etcd::TxnResult>)> done) override {
    ++txns;
    last_ops = ops;
    etcd_.pending.push_back([this, compares, ops, done] {
      if (!etcd_.up) return done(fail("etcd at http://fake:2379: connection refused"));
      const bool ok = etcd_.txn(compares, ops);
      done(etcd::TxnResult{.succeeded = ok, .revision = etcd_.revision});
    });
  }
  void watch_prefix(std::string prefix, int64_t start,
                    std::function<void(etcd::WatchBatch)> on_batch,
                    std::function<void(etcd::WatchEnd)> on_end) override {
    cancel_watch();
    ++watches;
    watcher = std::make_shared<FakeEtcd::Watcher>(
        FakeEtcd::Watcher{.prefix = prefix, .on_batch = on_batch, .on_end = on_end});
    etcd_.watch(watcher, start);
  }
  void cancel_watch() override {
    if (watcher) watcher->live = false;
    watcher.reset();
  }

  std::shared_ptr<FakeEtcd::Watcher> watcher;
  int txns = 0;
  std::vector<etcd::Op> last_ops;
  int watches = 0;

 private:
  FakeEtcd& etcd_;
};

// One vigil node: its daemon (a fake), its cache and its shared store, and its Octavia API.
struct Node {
  Node(FakeEtcd& etcd, vigil::testing::ManualClock& clock, vigil::testing::ManualWallClock& wall,
       vigil::testing::ManualTimerSource& timers, ObjectStore cached = {},
       bool feeds_readyz = false)
      : etcd(etcd), wall(wall), cache(std::move(cached)) {
    auto fake = std::make_unique<FakeKv>(etcd);
    kv = fake.get();
    shared = std::make_unique<SharedStore>(std::move(fake), cache, daemon, clock, wall, timers,
                                           SharedStore::Options{.prefix = std::string(kPrefix),
                                                                .name = "etcd at http://fake:2379",
                                                                .feeds_readyz = feeds_readyz});
  }

  // Sends a request and delivers etcd's answers until the write is answered.
  Response call(std::string_view method, std::string_view target, std::string_view body = "") {
    Response r = begin(method, target, body);
    if (!r.later) return r;
    std::optional<Response> got;
    r.later([&](Response ready) { got = std::move(ready); });
    etcd.deliver();
    EXPECT_TRUE(got) << method << " " << target << " was never answered";
    return got ? *got : Response{.status = 0};
  }
  Response begin(std::string_view method, std::string_view target, std::string_view body = "") {
    const Request request{.method = method, .target = target, .x_auth_token = "T", .body = body};
    return route(request, RouteContext{.token = "T",
                                       .daemon = daemon,
                                       .now = wall.now(),
                                       .store = &cache,
                                       .shared = shared.get()});
  }
  std::string create_lb(std::string_view name) {
    const Response r = call("POST", "/v2/lbaas/loadbalancers",
                            R"({"loadbalancer": {"name": ")" + std::string(name) +
                                R"(", "vip_subnet_id": ")" + local_subnet_id() + "\"}}");
    EXPECT_EQ(r.status, 201) << r.body;
    return r.status == 201
               ? std::string(json::parse(r.body).at("loadbalancer").at("id").as_string())
               : "";
  }
  // A pool of a new load balancer; its id.
  std::string create_pool(const std::string& lb) {
    const Response r = call("POST", "/v2/lbaas/pools",
                            R"({"pool": {"loadbalancer_id": ")" + lb +
                                R"(", "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"}})");
    EXPECT_EQ(r.status, 201) << r.body;
    return r.status == 201 ? std::string(json::parse(r.body).at("pool").at("id").as_string()) : "";
  }
  Response add_member(const std::string& pool, int port) {
    return call(
        "POST", "/v2/lbaas/pools/" + pool + "/members",
        fmt::format(R"({{"member": {{"address": "10.0.0.1", "protocol_port": {}}}}})", port));
  }
  size_t members(size_t lb = 0) const {
    return cache.state().loadbalancers.at(lb).pools.at(0).members.size();
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const ApiLoadBalancer& lb : cache.state().loadbalancers) out.push_back(lb.name);
    return out;
  }

  FakeEtcd& etcd;
  const vigil::testing::ManualWallClock& wall;
  testing::FakeDaemon daemon;
  ObjectStore cache;
  FakeKv* kv = nullptr;
  std::unique_ptr<SharedStore> shared;
};

class SharedStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    a_ = std::make_unique<Node>(etcd_, clock_, wall_, timers_);
    b_ = std::make_unique<Node>(etcd_, clock_, wall_, timers_);
    a_->shared->start();
    b_->shared->start();
    etcd_.deliver();
  }
  // Time passes: timers fire, and etcd answers what they asked.
  void wait(Duration d) {
    for (Duration step = 100ms; d > Duration::zero(); d -= step) {
      timers_.advance(std::min(step, d));
      wall_.advance(std::min(step, d));
      etcd_.deliver();
    }
  }

  FakeEtcd etcd_;
  vigil::testing::ManualClock clock_;
  vigil::testing::ManualWallClock wall_;
  vigil::testing::ManualTimerSource timers_{clock_};
  std::unique_ptr<Node> a_, b_;
};

TEST_F(SharedStoreTest, AWriteOnOneNodeIsServedByTheOther) {
  const std::string id = a_->create_lb("api");
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(b_->names(), (std::vector<std::string>{"api"})) << b_->shared->health().last_error;
  ASSERT_EQ(b_->daemon.applied.size(), 1u);
  EXPECT_EQ(b_->daemon.applied[0].changed.at(0).id, id);
  // Both answer it alike.
  const std::string path = "/v2/lbaas/loadbalancers/" + id;
  EXPECT_EQ(json::parse(a_->call("GET", path).body), json::parse(b_->call("GET", path).body));
  // The node that wrote it does not apply its own write twice.
  EXPECT_EQ(a_->daemon.applied.size(), 1u);
  // A delete through B is gone from A.
  EXPECT_EQ(b_->call("DELETE", path).status, 204);
  EXPECT_TRUE(a_->names().empty());
  EXPECT_EQ(a_->shared->health().followed_changes, 1u);
  EXPECT_EQ(b_->shared->health().writes, 1u);
}

TEST_F(SharedStoreTest, TwoWritesToOneLoadBalancerAtOnceOneWinsTheOtherGets409) {
  const std::string id = a_->create_lb("api");
  const std::string path = "/v2/lbaas/loadbalancers/" + id;
  // Both decide on the same revision before etcd has answered either.
  Response on_a = a_->begin("PUT", path, R"({"loadbalancer": {"name": "from-a"}})");
  Response on_b = b_->begin("PUT", path, R"({"loadbalancer": {"name": "from-b"}})");
  std::optional<Response> got_a, got_b;
  on_a.later([&](Response r) { got_a = std::move(r); });
  on_b.later([&](Response r) { got_b = std::move(r); });
  etcd_.deliver();
  ASSERT_TRUE(got_a && got_b);
  EXPECT_EQ(got_a->status, 200) << got_a->body;
  EXPECT_EQ(got_b->status, 409) << got_b->body;
  EXPECT_NE(got_b->body.find("another vigil node changed it at the same time"), std::string::npos);
  // The loser's daemon was given its change back; both now hold the winner's.
  EXPECT_EQ(a_->names(), (std::vector<std::string>{"from-a"}));
  EXPECT_EQ(b_->names(), (std::vector<std::string>{"from-a"}));
  EXPECT_EQ(b_->shared->health().conflicts, 1u);
  // B, now up to date, can write.
  EXPECT_EQ(b_->call("PUT", path, R"({"loadbalancer": {"name": "from-b"}})").status, 200);
  EXPECT_EQ(a_->names(), (std::vector<std::string>{"from-b"}));
}

// The issue's goal: a member write sends that member's key and its pool's, whatever the pool's
// size, and the load balancer's key does not move.
TEST_F(SharedStoreTest, AMemberWriteTouchesOnlyItsKeyAndItsPoolsAndReachesTheOtherNode) {
  const std::string id = a_->create_lb("api");
  const std::string pool = a_->create_pool(id);
  const int64_t lb_written = etcd_.keys.at(lb_key(kPrefix, id)).mod_revision;
  std::vector<size_t> sent;
  for (int port = 10; port < 30; ++port) {  // as many digits each
    const Response r = a_->add_member(pool, port);
    ASSERT_EQ(r.status, 201) << r.body;
    size_t bytes = 0;
    for (const etcd::Op& op : a_->kv->last_ops) bytes += op.key.size() + op.value.size();
    sent.push_back(bytes);
  }
  EXPECT_EQ(sent.front(), sent.back());
  EXPECT_EQ(etcd_.keys.at(lb_key(kPrefix, id)).mod_revision, lb_written);
  EXPECT_EQ(b_->members(), 20u);
  EXPECT_EQ(b_->cache.state().loadbalancers[0], a_->cache.state().loadbalancers[0]);
  // One event, one member: B's daemon ran one change per write, and B holds no copy of A's own.
  const size_t applied = b_->daemon.applied.size();
  const std::string member = std::string(a_->cache.state().loadbalancers[0].pools[0].members[3].id);
  EXPECT_EQ(a_->call("PUT", "/v2/lbaas/pools/" + pool + "/members/" + member,
                     R"({"member": {"weight": 7}})")
                .status,
            200);
  EXPECT_EQ(b_->daemon.applied.size(), applied + 1);
  EXPECT_EQ(b_->cache.state().loadbalancers[0].pools[0].members[3].weight, 7);
  EXPECT_EQ(b_->call("DELETE", "/v2/lbaas/pools/" + pool + "/members/" + member).status, 204);
  EXPECT_EQ(a_->members(), 19u);
  EXPECT_FALSE(etcd_.keys.contains(member_key(kPrefix, id, pool, member)));
  EXPECT_EQ(a_->shared->health().bad_values + b_->shared->health().bad_values, 0u);
}

// Octavia refuses a second member with the same address and port in a pool (409); made through
// two nodes at once, the pool's key makes one of them lose all the same.
TEST_F(SharedStoreTest, TheSameMemberAddedThroughTwoNodesAtOnceIsMadeOnce) {
  const std::string id = a_->create_lb("api");
  const std::string pool = a_->create_pool(id);
  const std::string body = R"({"member": {"address": "10.0.0.1", "protocol_port": 80}})";
  Response on_a = a_->begin("POST", "/v2/lbaas/pools/" + pool + "/members", body);
  Response on_b = b_->begin("POST", "/v2/lbaas/pools/" + pool + "/members", body);
  std::optional<Response> got_a, got_b;
  on_a.later([&](Response r) { got_a = std::move(r); });
  on_b.later([&](Response r) { got_b = std::move(r); });
  etcd_.deliver();
  ASSERT_TRUE(got_a && got_b);
  EXPECT_EQ(got_a->status, 201) << got_a->body;
  EXPECT_EQ(got_b->status, 409) << got_b->body;
  EXPECT_EQ(a_->members(), 1u);
  EXPECT_EQ(b_->members(), 1u);
  // Members of other pools do not wait for this one's.
  const std::string other = a_->create_pool(id);
  Response in_one = a_->begin("POST", "/v2/lbaas/pools/" + pool + "/members",
                              R"({"member": {"address": "10.0.0.2", "protocol_port": 80}})");
  Response in_other = b_->begin("POST", "/v2/lbaas/pools/" + other + "/members", body);
  got_a.reset();
  got_b.reset();
  in_one.later([&](Response r) { got_a = std::move(r); });
  in_other.later([&](Response r) { got_b = std::move(r); });
  etcd_.deliver();
  ASSERT_TRUE(got_a && got_b);
  EXPECT_EQ(got_a->status, 201) << got_a->body;
  EXPECT_EQ(got_b->status, 201) << got_b->body;
  EXPECT_EQ(b_->cache.state().loadbalancers[0], a_->cache.state().loadbalancers[0]);
}

// A member write and a delete of its pool at once: never a member left without its pool.
TEST_F(SharedStoreTest, AMemberWrittenWhileItsPoolIsDeletedElsewhereLoses) {
  const std::string id = a_->create_lb("api");
  const std::string pool = a_->create_pool(id);
  ASSERT_EQ(a_->add_member(pool, 80).status, 201);
  Response deleting = a_->begin("DELETE", "/v2/lbaas/pools/" + pool);
  Response adding = b_->begin("POST", "/v2/lbaas/pools/" + pool + "/members",
                              R"({"member": {"address": "10.0.0.1", "protocol_port": 81}})");
  std::optional<Response> got_a, got_b;
  deleting.later([&](Response r) { got_a = std::move(r); });
  adding.later([&](Response r) { got_b = std::move(r); });
  etcd_.deliver();
  ASSERT_TRUE(got_a && got_b);
  EXPECT_EQ(got_a->status, 204) << got_a->body;
  EXPECT_EQ(got_b->status, 409) << got_b->body;
  EXPECT_NE(got_b->body.find("Load Balancer " + id + " is immutable"), std::string::npos);
  for (const auto& [key, kv] : etcd_.keys) {
    EXPECT_FALSE(key.starts_with(members_of_lb(kPrefix, id))) << key;
  }
  EXPECT_TRUE(b_->cache.state().loadbalancers[0].pools.empty());
  // Deleting the load balancer takes every key of it; deleted through both nodes at once, it is
  // deleted once and the other delete loses.
  const std::string again = a_->create_pool(id);
  ASSERT_EQ(a_->add_member(again, 80).status, 201);
  const std::string path = "/v2/lbaas/loadbalancers/" + id + "?cascade=true";
  Response on_a = a_->begin("DELETE", path), on_b = b_->begin("DELETE", path);
  got_a.reset();
  got_b.reset();
  on_b.later([&](Response r) { got_b = std::move(r); });
  on_a.later([&](Response r) { got_a = std::move(r); });
  etcd_.deliver();
  ASSERT_TRUE(got_a && got_b);
  EXPECT_EQ(got_b->status, 204) << got_b->body;
  EXPECT_EQ(got_a->status, 409) << got_a->body;
  EXPECT_NE(got_a->body.find("Load Balancer " + id + " is immutable"), std::string::npos);
  EXPECT_EQ(etcd_.keys.size(), 1u) << "only the marker";
  EXPECT_TRUE(a_->names().empty());
}

TEST_F(SharedStoreTest, WritesWaitTheirTurnAndEachSeesTheOneBefore) {
  const std::string id = a_->create_lb("api");
  const std::string path = "/v2/lbaas/loadbalancers/" + id;
  std::vector<Response> answers;
  for (const char* name : {"one", "two", "three"}) {
    Response r =
        a_->begin("PUT", path, fmt::format(R"({{"loadbalancer": {{"name": "{}"}}}})", name));
    r.later([&](Response ready) { answers.push_back(std::move(ready)); });
  }
  etcd_.deliver();
  ASSERT_EQ(answers.size(), 3u);
  for (const Response& r : answers) EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(b_->names(), (std::vector<std::string>{"three"}));
}

TEST_F(SharedStoreTest, AnUnreachableEtcdRefusesWritesKeepsServingAndCatchesUp) {
  const std::string id = a_->create_lb("api");
  etcd_.stop();
  etcd_.deliver();
  const size_t applied = a_->daemon.applied.size();
  const Response r =
      a_->call("PUT", "/v2/lbaas/loadbalancers/" + id, R"({"loadbalancer": {"name": "x"}})");
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.body.find("etcd at http://fake:2379 did not commit it"), std::string::npos) << r.body;
  // The daemon ran the change and was given it back: the running state is as before.
  ASSERT_EQ(a_->daemon.applied.size(), applied + 2);
  EXPECT_EQ(a_->names(), (std::vector<std::string>{"api"}));
  // Reads answer from the cache, and say it is not following.
  EXPECT_EQ(a_->call("GET", "/v2/lbaas/loadbalancers/" + id).status, 200);
  wait(2s);
  EXPECT_FALSE(b_->shared->health().reachable);
  EXPECT_FALSE(b_->shared->health().following);
  EXPECT_FALSE(b_->shared->health().last_error.empty());

  etcd_.up = true;
  wait(2s);
  EXPECT_TRUE(b_->shared->health().following);
  EXPECT_EQ(
      a_->call("PUT", "/v2/lbaas/loadbalancers/" + id, R"({"loadbalancer": {"name": "y"}})").status,
      200);
  EXPECT_EQ(b_->names(), (std::vector<std::string>{"y"}));
}

std::string header(const Response& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "(none)";
}

TEST_F(SharedStoreTest, StatusMetricsAndReadsSayHowOldTheNodesCopyIs) {
  a_->create_lb("api");
  wait(1s);
  EXPECT_EQ(header(b_->call("GET", "/v2/lbaas/loadbalancers"), "X-Vigil-Store-Age"), "0");
  etcd_.stop();
  wait(5s);
  // The node's copy dates from its last probe that found it complete, before the outage.
  EXPECT_EQ(header(b_->call("GET", "/v2/lbaas/loadbalancers"), "X-Vigil-Store-Age"), "5");
  const json::value status = json::parse(b_->call("GET", "/v1/status").body);
  const json::value& store = status.at("store");
  EXPECT_EQ(store.at("following"), false);
  EXPECT_EQ(store.at("reachable"), false);
  EXPECT_EQ(store.at("age_seconds"), 5);
  EXPECT_EQ(store.at("revision"), 2);
  // The provider driver tells shared stores apart by their name and prefix.
  EXPECT_EQ(store.at("prefix").as_string(), kPrefix);
  EXPECT_NE(std::string(store.at("last_error").as_string()).find("connection refused"),
            std::string::npos);
  EXPECT_TRUE(status.as_object().contains("loadbalancers")) << "the rest of /v1/status is kept";
  const std::string metrics = b_->call("GET", "/metrics").body;
  EXPECT_NE(metrics.find("\nvigil_store_up 0\n"), std::string::npos);
  EXPECT_NE(metrics.find("\nvigil_store_stale_seconds 5\n"), std::string::npos);
  EXPECT_NE(metrics.find("vigil_store_writes_total{result=\"committed\"} 0\n"), std::string::npos);
  const std::string page = b_->call("GET", "/").body;
  EXPECT_NE(page.find("<p class=\"error\">API objects in etcd at http://fake:2379: NOT following "
                      "(unreachable; this node&#39;s copy is 5 s old)"),
            std::string::npos)
      << page.substr(0, 2000);
  EXPECT_NE(
      a_->call("GET", "/metrics").body.find("vigil_store_writes_total{result=\"committed\"} 1\n"),
      std::string::npos);
}

TEST_F(SharedStoreTest, ANodeThatMissedCompactedChangesReadsEverythingAgain) {
  a_->create_lb("one");
  b_->kv->watcher->deaf = true;  // B misses what follows, and etcd forgets it
  a_->create_lb("two");
  a_->create_lb("three");
  etcd_.compact();
  const uint64_t resyncs = b_->shared->health().resyncs;
  wait(5s);
  EXPECT_EQ(b_->names(), (std::vector<std::string>{"one", "two", "three"}));
  EXPECT_EQ(b_->shared->health().resyncs, resyncs + 1);
  EXPECT_TRUE(b_->shared->health().following);
  // Nothing B already ran was made anew: one change for each load balancer it lacked.
  EXPECT_EQ(b_->daemon.applied.size(), 2u);
}

TEST_F(SharedStoreTest, AValueThatIsNotVigilsIsNamedAndChangesNothing) {
  a_->create_lb("api");
  etcd_.put_raw(lb_key(kPrefix, "aaaaaaaa-0000-4000-8000-000000000001"), "not json");
  etcd_.deliver();
  EXPECT_EQ(b_->names(), (std::vector<std::string>{"api"}));
  EXPECT_EQ(b_->shared->health().bad_values, 1u);
  EXPECT_NE(b_->shared->health().last_error.find("not valid JSON"), std::string::npos)
      << b_->shared->health().last_error;
  // The next good write still comes through.
  a_->create_lb("next");
  EXPECT_EQ(b_->names(), (std::vector<std::string>{"api", "next"}));
}

TEST_F(SharedStoreTest, AWatchThatSilentlyStoppedIsStartedAgain) {
  b_->kv->watcher->deaf = true;
  a_->create_lb("api");
  EXPECT_TRUE(b_->names().empty());
  const int watches = b_->kv->watches;
  wait(5s);
  EXPECT_GT(b_->kv->watches, watches);
  EXPECT_EQ(b_->names(), (std::vector<std::string>{"api"}));
  EXPECT_NE(b_->shared->health().last_error.find("brought nothing past revision"),
            std::string::npos);
}

TEST_F(SharedStoreTest, APausedNodeNeitherWritesNorFollowsUntilItResumes) {
  a_->shared->pause("vigil is handing over to a new process (vigil upgrade)");
  const Response r = a_->call("POST", "/v2/lbaas/loadbalancers",
                              R"({"loadbalancer": {"vip_address": "127.0.0.1"}})");
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.body.find("handing over to a new process"), std::string::npos) << r.body;
  EXPECT_EQ(a_->kv->txns, 0);
  b_->create_lb("while-paused");
  wait(2s);
  EXPECT_TRUE(a_->names().empty());
  a_->shared->resume();
  etcd_.deliver();
  EXPECT_EQ(a_->names(), (std::vector<std::string>{"while-paused"}));
  EXPECT_EQ(a_->call("POST", "/v2/lbaas/loadbalancers",
                     R"({"loadbalancer": {"vip_address": "127.0.0.1"}})")
                .status,
            201);
}

// admin.store.readyz: off, an outage of etcd leaves /readyz alone; on, it answers 503 and says why.
TEST_F(SharedStoreTest, ReadyzFollowsTheStoreOnlyWhenAsked) {
  Node asked(etcd_, clock_, wall_, timers_, ObjectStore{}, true);
  asked.shared->start();
  etcd_.deliver();
  wait(1s);
  EXPECT_EQ(asked.call("GET", "/readyz").status, 200);
  etcd_.stop();
  wait(3s);
  const Response r = asked.call("GET", "/readyz");
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.body.find("down store: etcd at http://fake:2379 (not following for 3 s): "),
            std::string::npos)
      << r.body;
  EXPECT_EQ(b_->call("GET", "/readyz").status, 200);
  etcd_.up = true;
  wait(2s);
  EXPECT_EQ(asked.call("GET", "/readyz").status, 200);
}

TEST(SharedStore, ANodeHoldingObjectsNeverTakesAnEmptyEtcdForDeleteEverything) {
  FakeEtcd etcd;
  vigil::testing::ManualClock clock;
  vigil::testing::ManualWallClock wall;
  vigil::testing::ManualTimerSource timers(clock);
  ApiState held;
  ApiLoadBalancer lb;
  lb.id = "aaaaaaaa-0000-4000-8000-000000000001";
  lb.name = "kept";
  lb.vip_address = "127.0.0.1";
  held.loadbalancers.push_back(lb);
  ObjectStore cache;
  ASSERT_TRUE(cache.commit(held));
  Node node(etcd, clock, wall, timers, std::move(cache));
  node.shared->start();
  etcd.deliver();
  EXPECT_EQ(node.names(), (std::vector<std::string>{"kept"}));
  EXPECT_NE(node.shared->health().refusing.find("vigil store import"), std::string::npos);
  const Response r = node.call("POST", "/v2/lbaas/loadbalancers",
                               R"({"loadbalancer": {"vip_address": "127.0.0.1"}})");
  EXPECT_EQ(r.status, 503) << r.body;
  EXPECT_EQ(node.kv->txns, 0);
}

// A prefix that vigil wrote before members had keys: each load balancer's value holds its
// members. It loads as it is, and the next write of a load balancer moves its members to keys of
// their own, which an older reader refuses rather than take the pools for empty.
TEST(SharedStore, APrefixWrittenWithMembersInsideLoadsAndMovesThemOnTheNextWrite) {
  FakeEtcd etcd;
  vigil::testing::ManualClock clock;
  vigil::testing::ManualWallClock wall;
  vigil::testing::ManualTimerSource timers(clock);
  Node writer(etcd, clock, wall, timers);
  writer.shared->start();
  etcd.deliver();
  const std::string id = writer.create_lb("api");
  const std::string pool = writer.create_pool(id);
  ASSERT_EQ(writer.add_member(pool, 80).status, 201);
  ASSERT_EQ(writer.add_member(pool, 81).status, 201);
  const ApiLoadBalancer made = writer.cache.state().loadbalancers[0];
  // As vigil wrote it before 2026-12-05: the one key, whole.
  etcd.keys.clear();
  etcd.put_raw(lb_key(kPrefix, id), lb_to_json(made));
  etcd.put_raw(marker_key(kPrefix), std::string(kMarkerValue));

  Node a(etcd, clock, wall, timers), b(etcd, clock, wall, timers);
  a.shared->start();
  b.shared->start();
  etcd.deliver();
  ASSERT_EQ(a.names(), (std::vector<std::string>{"api"}));
  EXPECT_EQ(a.cache.state().loadbalancers[0], made);
  EXPECT_EQ(a.shared->health().bad_values, 0u);

  ASSERT_EQ(a.add_member(pool, 82).status, 201);
  EXPECT_EQ(etcd.keys.at(lb_key(kPrefix, id)).value, lb_shell_to_json(made));
  size_t keyed = 0;
  for (const auto& [key, kv] : etcd.keys) keyed += key.starts_with(members_of_lb(kPrefix, id));
  EXPECT_EQ(keyed, 3u);
  EXPECT_EQ(b.members(), 3u);
  EXPECT_EQ(b.cache.state().loadbalancers[0], a.cache.state().loadbalancers[0]);
  EXPECT_EQ(b.shared->health().bad_values, 0u);
  // From then on, a member write is its own key.
  ASSERT_EQ(b.add_member(pool, 83).status, 201);
  EXPECT_EQ(b.kv->last_ops.size(), 3u);  // the pool's key, the member's, the marker
  EXPECT_EQ(a.members(), 4u);
}

}  // namespace
}  // namespace vigil::admin
