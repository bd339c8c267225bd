// Octavia writes through route(): the store changes only after the daemon applied the change and
// the state file holds it; refusals change nothing. The daemon is a fake that records calls.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <thread>

#include "admin/fake_daemon_test.h"
#include "admin/octavia/local_network.h"
#include "admin/octavia/object_store.h"
#include "admin/routes.h"
#include "base/file.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

class WritesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    state_file_ = (fs::temp_directory_path() / fmt::format("vigil-writes-{}.json", ::getpid()));
    fs::remove(state_file_);
    store_ = std::move(*ObjectStore::load(state_file_.string()));
  }
  void TearDown() override {
    fs::remove(state_file_);
    fs::remove(state_file_.string() + ".journal");
  }

  // `render`: the server's way of building an answer off the control thread; null: none.
  Response call(std::string_view method, std::string_view target, std::string_view body = "",
                const RenderFn* render = nullptr) {
    const Request request{.method = method, .target = target, .x_auth_token = "T", .body = body};
    return route(
        request,
        RouteContext{
            .token = "T", .daemon = daemon_, .now = now_, .store = &store_, .render = render});
  }
  json::value body(const Response& r) { return json::parse(r.body); }
  std::string faultstring(const Response& r) {
    return std::string(body(r).at("faultstring").as_string());
  }
  // POSTs and returns the new object's id; fails the test unless 201.
  std::string create(std::string_view target, std::string_view kind, const std::string& fields) {
    const Response r = call("POST", target, fmt::format(R"({{"{}": {}}})", kind, fields));
    EXPECT_EQ(r.status, 201) << r.body;
    if (r.status != 201) return "";
    return std::string(body(r).at(kind).at("id").as_string());
  }
  // The seed's scenario: a load balancer, a TCP listener, a pool and a member.
  void scenario() {
    lb_ = create("/v2.0/lbaas/loadbalancers", "loadbalancer",
                 R"({"name": "k8s", "vip_subnet_id": ")" + local_subnet_id() + "\"}");
    listener_ = create("/v2.0/lbaas/listeners", "listener",
                       R"({"loadbalancer_id": ")" + lb_ +
                           R"(", "protocol": "TCP", "protocol_port": 16443, "name": "api"})");
    pool_ =
        create("/v2.0/lbaas/pools", "pool",
               R"({"listener_id": ")" + listener_ +
                   R"(", "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN", "name": "masters"})");
    member_ = create("/v2.0/lbaas/pools/" + pool_ + "/members", "member",
                     R"({"address": "127.0.0.1", "protocol_port": 7001, "name": "master-01"})");
  }

  fs::path state_file_;
  model::WallTime now_ = testing::kNow;
  ObjectStore store_;
  testing::FakeDaemon daemon_;  // its refuse: the daemon refuses a write with this message
  std::string lb_, listener_, pool_, member_;
};

TEST_F(WritesTest, CreatesAnswer201WithTheObjectAppliedAndSaved) {
  const Response r = call("POST", "/v2.0/lbaas/loadbalancers",
                          R"({"loadbalancer": {"name": "k8s", "vip_address": "127.0.0.1"}})");
  ASSERT_EQ(r.status, 201) << r.body;
  const json::value lb = body(r).at("loadbalancer");
  EXPECT_EQ(lb.at("name"), "k8s");
  EXPECT_EQ(lb.at("provisioning_status"), "ACTIVE");
  EXPECT_EQ(lb.at("vip_address"), "127.0.0.1");
  EXPECT_EQ(lb.at("vip_subnet_id"), json::value(local_subnet_id()));
  EXPECT_EQ(lb.at("admin_state_up"), true);
  ASSERT_EQ(daemon_.applied.size(), 1u);
  ASSERT_EQ(daemon_.applied[0].changed.size(), 1u);
  EXPECT_TRUE(daemon_.applied[0].removed.empty());
  EXPECT_EQ(daemon_.applied[0].changed[0].id, lb.at("id").as_string());
  EXPECT_EQ(daemon_.applied[0].changed[0].origin, model::Origin::kApi);
  // Saved before the answer.
  auto reloaded = ObjectStore::load(state_file_.string());
  ASSERT_TRUE(reloaded);
  EXPECT_EQ(reloaded->state().loadbalancers.at(0).id, lb.at("id").as_string());
}

// Octavia lists by created_at and then by the random id. Members made within one second keep the
// order they were made in, as Octavia on a database that keeps microseconds lists them.
TEST_F(WritesTest, ObjectsMadeWithinOneSecondListInTheOrderTheyWereMade) {
  scenario();
  std::vector<std::string> made = {member_};
  for (int i = 2; i <= 8; ++i) {
    now_ += std::chrono::milliseconds(100);
    made.push_back(
        create("/v2.0/lbaas/pools/" + pool_ + "/members", "member",
               fmt::format(R"({{"address": "127.0.0.1", "protocol_port": {}}})", 7000 + i)));
  }
  const json::value shown = body(call("GET", "/v2.0/lbaas/pools/" + pool_ + "/members/" + made[1]));
  EXPECT_EQ(shown.at("member").at("created_at"), "2024-05-01T12:01:40.100000");
  const json::value members = body(call("GET", "/v2.0/lbaas/pools/" + pool_ + "/members"));
  std::vector<std::string> listed;
  for (const json::value& m : members.at("members").as_array()) {
    listed.emplace_back(m.at("id").as_string());
  }
  EXPECT_EQ(listed, made);
}

TEST_F(WritesTest, TheSeedsScenarioThroughTheRoutes) {
  scenario();
  ASSERT_FALSE(member_.empty());
  const json::value members = body(call("GET", "/v2.0/lbaas/pools/" + pool_ + "/members"));
  ASSERT_EQ(members.at("members").as_array().size(), 1u);
  EXPECT_EQ(members.at("members").at(0).at("operating_status"), "NO_MONITOR");
  EXPECT_EQ(members.at("members").at(0).at("name"), "master-01");
  const std::string hm = create("/v2.0/lbaas/healthmonitors", "healthmonitor",
                                R"({"pool_id": ")" + pool_ +
                                    R"(", "type": "TLS-HELLO", "delay": 5, "timeout": 10,
                                    "max_retries": 4})");
  const json::value shown = body(call("GET", "/v2.0/lbaas/healthmonitors/" + hm));
  EXPECT_EQ(shown.at("healthmonitor").at("max_retries"), 4);
  EXPECT_EQ(shown.at("healthmonitor").at("max_retries_down"), 3);
  EXPECT_EQ(shown.at("healthmonitor").at("timeout"), 10);
  EXPECT_EQ(shown.at("healthmonitor").at("pools").at(0).at("id"), json::value(pool_));
  // Before the daemon's first check: OFFLINE, as Octavia shows it.
  EXPECT_EQ(body(call("GET", "/v2.0/lbaas/pools/" + pool_ + "/members/" + member_))
                .at("member")
                .at("operating_status"),
            "OFFLINE");
  const Response put = call("PUT", "/v2.0/lbaas/pools/" + pool_ + "/members/" + member_,
                            R"({"member": {"weight": 0}})");
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(body(put).at("member").at("weight"), 0);
  EXPECT_EQ(body(put).at("member").at("operating_status"), "DRAINING");
  const json::value tree = body(call("GET", "/v2/lbaas/loadbalancers/" + lb_ + "/status"));
  const json::value& pool =
      tree.at("statuses").at("loadbalancer").at("listeners").at(0).at("pools").at(0);
  EXPECT_EQ(pool.at("name"), "masters");
  EXPECT_EQ(pool.at("health_monitor").at("id"), json::value(hm));
  EXPECT_EQ(pool.at("members").at(0).at("name"), "master-01");
  EXPECT_EQ(daemon_.applied.size(), 6u);
  for (const ApiChange& c : daemon_.applied) {
    ASSERT_EQ(c.changed.size(), 1u) << "each write changes its load balancer alone";
    EXPECT_EQ(c.changed[0].id, lb_);
    EXPECT_TRUE(c.removed.empty());
  }
  const Response gone = call("DELETE", "/v2.0/lbaas/loadbalancers/" + lb_ + "?cascade=True");
  EXPECT_EQ(gone.status, 204);
  EXPECT_TRUE(gone.body.empty());
  EXPECT_TRUE(store_.state().loadbalancers.empty());
  EXPECT_TRUE(daemon_.applied.back().changed.empty());
  EXPECT_EQ(daemon_.applied.back().removed, std::vector<std::string>{lb_});
}

TEST_F(WritesTest, ListsShowTheFilesAndTheApisObjectsWithFilters) {
  scenario();
  const json::value lbs = body(call("GET", "/v2.0/lbaas/loadbalancers"));
  ASSERT_EQ(lbs.at("loadbalancers").as_array().size(), 2u);
  EXPECT_EQ(lbs.at("loadbalancers").at(0).at("name"), "vigil");  // the file's first
  EXPECT_EQ(lbs.at("loadbalancers").at(1).at("name"), "k8s");
  const json::value ours = body(call("GET", "/v2.0/lbaas/listeners?loadbalancer_id=" + lb_));
  ASSERT_EQ(ours.at("listeners").as_array().size(), 1u);
  EXPECT_EQ(ours.at("listeners").at(0).at("name"), "api");
  EXPECT_EQ(ours.at("listeners").at(0).at("connection_limit"), -1);
  const json::value by_port = body(call("GET", "/v2.0/lbaas/listeners?protocol_port=6443"));
  EXPECT_EQ(by_port.at("listeners").at(0).at("name"), "api");  // the file's
  EXPECT_EQ(body(call("GET", "/v2.0/lbaas/pools?name=masters")).at("pools").as_array().size(), 2u);
  // Octavia's pools have no listener_id column: its 400.
  EXPECT_EQ(call("GET", "/v2.0/lbaas/pools?listener_id=" + listener_).status, 400);
  EXPECT_EQ(body(call("GET", "/v2.0/lbaas/loadbalancers?operating_status=DEGRADED"))
                .at("loadbalancers")
                .as_array()
                .size(),
            1u);
  const json::value status = body(call("GET", "/v1/status"));
  EXPECT_EQ(status.at("loadbalancers").as_array().size(), 2u);
  EXPECT_EQ(status.at("loadbalancer").at("name"), "vigil");
  EXPECT_NE(call("GET", "/metrics").body.find("lb=\"k8s\""), std::string::npos);
}

TEST_F(WritesTest, AStateFileThatCannotBeWrittenUndoesTheChangeTheDaemonMade) {
  scenario();
  const std::string before = *read_file(state_file_.string());
  const size_t calls = daemon_.applied.size();
  set_fsync_for_tests([](int) {
    errno = EIO;
    return -1;
  });
  const Response r = call("POST", "/v2.0/lbaas/pools/" + pool_ + "/members",
                          R"({"member": {"address": "127.0.0.1", "protocol_port": 7002}})");
  set_fsync_for_tests(nullptr);
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(faultstring(r).find("cannot save the API objects"), std::string::npos) << r.body;
  ASSERT_EQ(daemon_.applied.size(), calls + 2) << "the change, then its undoing";
  const ApiChange& made = daemon_.applied[calls];
  const ApiChange& undone = daemon_.applied[calls + 1];
  ASSERT_EQ(made.changed.size(), 1u);
  ASSERT_EQ(undone.changed.size(), 1u);
  EXPECT_EQ(made.changed[0].pools.at(0).members.size(), 2u);
  EXPECT_EQ(undone.changed[0].pools.at(0).members.size(), 1u) << "the load balancer as it was";
  EXPECT_TRUE(made.removed.empty());
  EXPECT_TRUE(undone.removed.empty());
  EXPECT_EQ(store_.state().loadbalancers[0].pools[0].members.size(), 1u);
  EXPECT_EQ(*read_file(state_file_.string()), before);
}

// A write by id is decided on the config file's load balancers and the one it names: never on the
// views of every load balancer, whose cost grows with the store (the fake shows all anyway).
TEST_F(WritesTest, AWriteAsksForTheFileAndTheLoadBalancerItNamesOnly) {
  scenario();
  daemon_.asked.clear();
  EXPECT_EQ(
      call("PUT", "/v2.0/lbaas/listeners/" + listener_, R"({"listener": {"name": "x"}})").status,
      200);
  EXPECT_EQ(
      call("PUT", "/v2.0/lbaas/loadbalancers/" + lb_, R"({"loadbalancer": {"name": "y"}})").status,
      200);
  create("/v2.0/lbaas/healthmonitors", "healthmonitor",
         R"({"pool_id": ")" + pool_ + R"(", "type": "TCP", "delay": 5, "timeout": 2,
             "max_retries": 2})");
  ASSERT_FALSE(daemon_.asked.empty());
  for (const testing::FakeDaemon::Asked& a : daemon_.asked) {
    EXPECT_TRUE(!a.api || (!a.file && a.lb_id == lb_))
        << "file " << a.file << " api " << a.api << " lb " << a.lb_id.value_or("(all)");
  }
}

// A fully-populated create is one change for the daemon and one write of the state file.
TEST_F(WritesTest, AFullyPopulatedCreateIsAppliedAndSavedAsOneChange) {
  const Response r = call("POST", "/v2/lbaas/loadbalancers", R"({"loadbalancer": {"name": "k8s",
      "listeners": [{"protocol": "TCP", "protocol_port": 16443,
        "default_pool": {"name": "masters", "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN",
          "members": [{"address": "127.0.0.1", "protocol_port": 7001},
                      {"address": "127.0.0.1", "protocol_port": 7002}],
          "healthmonitor": {"type": "TCP", "delay": 5, "timeout": 2, "max_retries": 2}}}]}})");
  ASSERT_EQ(r.status, 201) << r.body;
  ASSERT_EQ(daemon_.applied.size(), 1u);
  ASSERT_EQ(daemon_.applied[0].changed.size(), 1u);
  const model::Config& c = daemon_.applied[0].changed[0];
  ASSERT_EQ(c.listeners.size(), 1u);
  ASSERT_EQ(c.pools.size(), 1u);
  EXPECT_EQ(c.pools[0].members.size(), 2u);
  EXPECT_TRUE(c.pools[0].health_monitor);
  EXPECT_EQ(c.listeners[0].pool, c.pools[0].name);
  auto reloaded = ObjectStore::load(state_file_.string());
  ASSERT_TRUE(reloaded);
  EXPECT_EQ(reloaded->state().loadbalancers.at(0).pools.at(0).members.size(), 2u);
  // Refused whole: nothing applied, nothing saved.
  const auto saved = [&] {
    return *read_file(state_file_.string()) +
           read_file(state_file_.string() + ".journal").value_or("");
  };
  const std::string before = saved();
  const Response refused = call("POST", "/v2/lbaas/loadbalancers", R"({"loadbalancer": {
      "listeners": [{"protocol": "TCP", "protocol_port": 16444}],
      "pools": [{"name": "p", "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN",
                 "members": [{"address": "not an address", "protocol_port": 7001}]}]}})");
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_EQ(daemon_.applied.size(), 1u);
  EXPECT_EQ(store_.state().loadbalancers.size(), 1u);
  EXPECT_EQ(saved(), before);
}

TEST_F(WritesTest, ARefusalByTheDaemonChangesNothing) {
  scenario();
  const std::string before = *read_file(state_file_.string());
  const size_t calls = daemon_.applied.size();
  daemon_.refuse = "cannot bind 127.0.0.1:16444: Address already in use";
  const Response r = call("POST", "/v2.0/lbaas/listeners",
                          R"({"listener": {"loadbalancer_id": ")" + lb_ +
                              R"(", "protocol": "TCP", "protocol_port": 16444}})");
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(faultstring(r), daemon_.refuse);
  EXPECT_EQ(store_.state().loadbalancers[0].listeners.size(), 1u);
  EXPECT_EQ(*read_file(state_file_.string()), before);
  EXPECT_EQ(daemon_.applied.size(), calls);
}

TEST_F(WritesTest, BadInputIs400AndNeverReachesTheDaemon) {
  scenario();
  const std::string before = *read_file(state_file_.string());
  const size_t calls = daemon_.applied.size();
  struct Case {
    std::string method, target, body, message;
  };
  const std::vector<Case> cases = {
      {"POST", "/v2.0/lbaas/healthmonitors",
       R"({"healthmonitor": {"pool_id": ")" + pool_ + R"(", "type": "PING", "delay": 1,
           "timeout": 1, "max_retries": 1}})",
       "vigil does not run PING health monitors"},
      {"POST", "/v2.0/lbaas/healthmonitors",
       R"({"healthmonitor": {"pool_id": ")" + pool_ + R"(", "type": "TCP", "delay": 1,
           "timeout": 1, "max_retries": 0}})",
       "max_retries. Value: '0'"},
      {"POST", "/v2.0/lbaas/listeners",
       R"({"listener": {"loadbalancer_id": ")" + lb_ +
           R"(", "protocol": "TCP", "protocol_port": 70000}})",
       "Value: '70000'"},
      {"POST", "/v2.0/lbaas/pools/" + pool_ + "/members", "{\"member\": {",
       "Request is not in valid JSON format"},
      {"PUT", "/v2.0/lbaas/listeners/" + listener_, R"({"listener": {"protocol": "UDP"}})",
       "Unknown attribute for argument listener_.listener: protocol"},
  };
  for (const Case& c : cases) {
    const Response r = call(c.method, c.target, c.body);
    EXPECT_EQ(r.status, 400) << c.target << " " << r.body;
    EXPECT_NE(faultstring(r).find(c.message), std::string::npos) << faultstring(r);
  }
  EXPECT_EQ(daemon_.applied.size(), calls);
  EXPECT_EQ(*read_file(state_file_.string()), before);
}

TEST_F(WritesTest, TheFilesObjectsAreReadOnly) {
  const auto file = testing::sample_view();
  const std::string read_only =
      "objects from /etc/vigil/vigil.yaml are read-only through the API: edit the file and reload";
  for (const auto& [method, target] : std::vector<std::pair<std::string, std::string>>{
           {"PUT", "/v2/lbaas/pools/" + file.pools[0].id},
           {"DELETE", "/v2/lbaas/loadbalancers/" + file.id},
           {"POST", "/v2/lbaas/pools/masters/members"},
           {"DELETE", "/v2/lbaas/healthmonitors/" + file.pools[0].health_monitor_id}}) {
    const Response r = call(method, target, R"({"x": {}})");
    EXPECT_EQ(r.status, 409) << target;
    EXPECT_EQ(faultstring(r), read_only);
  }
  // A relation to the file's objects in a body: the same answer.
  const Response monitor = call("POST", "/v2/lbaas/healthmonitors",
                                R"({"healthmonitor": {"pool_id": ")" + file.pools[1].id +
                                    R"(", "type": "TCP", "delay": 1, "timeout": 1,
                                    "max_retries": 1}})");
  EXPECT_EQ(monitor.status, 409);
  EXPECT_EQ(faultstring(monitor), read_only);
  EXPECT_TRUE(daemon_.applied.empty());
}

TEST_F(WritesTest, MethodsAndMissingObjects) {
  scenario();
  EXPECT_EQ(call("PUT", "/v2/lbaas/pools", "{}").status, 405);
  EXPECT_EQ(call("POST", "/v2/lbaas/pools/" + pool_, "{}").status, 405);
  EXPECT_EQ(call("PATCH", "/v2/lbaas/pools/" + pool_, "{}").status, 405);
  EXPECT_EQ(call("DELETE", "/v2/lbaas/loadbalancers/" + lb_ + "/status").status, 405);
  const Response missing = call("DELETE", "/v2/lbaas/listeners/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(faultstring(missing), "Listener nope not found.");
  EXPECT_EQ(call("DELETE", "/v2/lbaas/pools/" + pool_ + "/members/nope").status, 404);
  const Response children = call("DELETE", "/v2/lbaas/loadbalancers/" + lb_);
  EXPECT_EQ(children.status, 400);
  EXPECT_NE(faultstring(children).find("it has children"), std::string::npos);
  EXPECT_EQ(call("DELETE", "/v2/lbaas/pools/" + pool_ + "/members/" + member_).status, 204);
  EXPECT_EQ(call("DELETE", "/v2/lbaas/pools/" + pool_).status, 204);
  EXPECT_EQ(call("DELETE", "/v2/lbaas/listeners/" + listener_).status, 204);
  EXPECT_EQ(call("DELETE", "/v2/lbaas/loadbalancers/" + lb_).status, 204);
}

TEST_F(WritesTest, NeutronAnswersForTheCli) {
  const json::value subnets = body(call("GET", "/v2.0/subnets?name=vigil-local"));
  ASSERT_EQ(subnets.at("subnets").as_array().size(), 1u);
  EXPECT_EQ(subnets.at("subnets").at(0).at("id"), json::value(local_subnet_id()));
  EXPECT_TRUE(body(call("GET", "/v2.0/subnets?name=other")).at("subnets").as_array().empty());
  EXPECT_EQ(body(call("GET", "/v2.0/subnets/" + local_subnet_id())).at("subnet").at("name"),
            "vigil-local");
  EXPECT_EQ(call("GET", "/v2.0/subnets/nope").status, 404);
  EXPECT_EQ(
      body(call("GET", "/v2.0/networks?id=" + local_network_id())).at("networks").as_array().size(),
      1u);
  EXPECT_TRUE(body(call("GET", "/v2.0/ports")).at("ports").as_array().empty());
  EXPECT_EQ(call("POST", "/v2.0/subnets", "{}").status, 405);
}

}  // namespace
}  // namespace vigil::admin

namespace vigil::admin {
namespace {

// Renders as the admin server does, on another thread (joined before it returns), and notes which.
RenderFn render_on_a_thread_of_its_own(std::thread::id& rendered_on) {
  return [&rendered_on](std::function<Response()> build, std::function<void(Response)> send) {
    std::thread worker([&] {
      rendered_on = std::this_thread::get_id();
      send(build());
    });
    worker.join();
  };
}

// A whole list is built on another thread (as the server does it), from what the store held when
// it was asked: a write that lands before the list is built is not in it, and nothing the list
// reads is what the write changes. Single objects answer at once.
TEST_F(WritesTest, AListIsRenderedOffTheControlThreadFromTheStateAsAsked) {
  scenario();
  std::thread::id rendered_on;
  const RenderFn render = render_on_a_thread_of_its_own(rendered_on);
  for (const char* list : {"/v2.0/lbaas/loadbalancers", "/v2.0/lbaas/listeners",
                           "/v2.0/lbaas/pools", "/v2.0/lbaas/healthmonitors"}) {
    const Response inline_answer = call("GET", list);
    Response later = call("GET", list, "", &render);
    ASSERT_TRUE(later.later) << list;
    Response answer;
    later.later([&](Response r) { answer = std::move(r); });
    EXPECT_NE(rendered_on, std::this_thread::get_id());
    EXPECT_EQ(answer.status, 200) << list;
    EXPECT_EQ(answer.body, inline_answer.body) << list;
  }
  EXPECT_FALSE(call("GET", "/v2.0/lbaas/loadbalancers/" + lb_, "", &render).later);
  EXPECT_FALSE(call("GET", "/v2.0/lbaas/pools/" + pool_ + "/members", "", &render).later);

  Response asked = call("GET", "/v2.0/lbaas/loadbalancers?name=second", "", &render);
  ASSERT_TRUE(asked.later);
  create("/v2.0/lbaas/loadbalancers", "loadbalancer",
         R"({"name": "second", "vip_subnet_id": ")" + local_subnet_id() + "\"}");
  Response answer;
  asked.later([&](Response r) { answer = std::move(r); });
  EXPECT_TRUE(body(answer).at("loadbalancers").as_array().empty()) << answer.body;
  EXPECT_EQ(body(call("GET", "/v2.0/lbaas/loadbalancers?name=second"))
                .at("loadbalancers")
                .as_array()
                .size(),
            1u)
      << "asked again, the list has it";
}

// /v1/status and /metrics merge the API's objects into the daemon's views on the render thread,
// from the state as it was when asked, as the lists do.
TEST_F(WritesTest, StatusAndMetricsMergeTheApiStateOffTheControlThreadAsAsked) {
  scenario();
  std::thread::id rendered_on;
  const RenderFn render = render_on_a_thread_of_its_own(rendered_on);
  for (const char* path : {"/v1/status", "/metrics"}) {
    const Response inline_answer = call("GET", path);
    ASSERT_NE(inline_answer.body.find(lb_), std::string::npos) << path << " shows the API's LB";
    Response asked = call("GET", path, "", &render);
    ASSERT_TRUE(asked.later) << path;
    const std::string second = std::string("second-") + (path[1] == 'm' ? "m" : "s");
    create("/v2.0/lbaas/loadbalancers", "loadbalancer",
           R"({"name": ")" + second + R"(", "vip_subnet_id": ")" + local_subnet_id() + "\"}");
    Response answer;
    asked.later([&](Response r) { answer = std::move(r); });
    EXPECT_NE(rendered_on, std::this_thread::get_id());
    EXPECT_EQ(answer.status, 200) << path;
    EXPECT_EQ(whole_body(answer), inline_answer.body)
        << path << ": made after it was asked, not in it";
    EXPECT_NE(call("GET", path).body.find(second), std::string::npos) << path << ", asked again";
  }
}

}  // namespace
}  // namespace vigil::admin
