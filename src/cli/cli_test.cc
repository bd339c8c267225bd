// The client commands: formatting of /v1/status documents (a literal one, and one rendered by
// the admin API itself so the two cannot drift), the HTTP client's errors, and end to end
// against a real AdminServer.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/json.hpp>
#include <sstream>
#include <thread>

#include "admin/sample_view_test.h"
#include "admin/server.h"
#include "admin/status_json.h"
#include "cli/client.h"
#include "cli/commands.h"
#include "cli/table.h"

namespace vigil::cli {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

// A small document as an older or hand-written daemon answer might look.
constexpr std::string_view kLiteral = R"({
  "loadbalancer": {"id": "lb1", "name": "edge", "operating_status": "ERROR"},
  "listeners": [],
  "pools": [{"id": "p1", "name": "routers", "algorithm": "source_ip", "listener_ids": [],
             "operating_status": "ERROR",
             "health_monitor": {"id": "hm1", "type": "TCP", "unhealthy_threshold": 3,
                                "healthy_threshold": 2},
             "members": [{"id": "m1", "name": "router-a", "address": "fd00::1",
                          "protocol_port": 443, "weight": 1, "admin_state_up": true,
                          "operating_status": "ERROR", "health": "down", "in_rotation": false,
                          "check": {"result": "timeout", "reason": "timeout"},
                          "state_since": "2024-05-01T12:00:00Z", "state_seconds": 184,
                          "consecutive_failures": 5, "consecutive_successes": 1}]}]
})";

std::string rendered() {
  return admin::status_json(admin::testing::sample_view(), admin::testing::kNow);
}

TEST(Health, OneLineOfTheReadyzAnswer) {
  EXPECT_EQ(health_line(200, "ready\nok api: 3/3 members usable\nok etcd: 1/1 members usable\n"),
            "ready: ok api: 3/3 members usable; ok etcd: 1/1 members usable");
  EXPECT_EQ(health_line(503, "not serving: stopping\n"), "not serving: stopping");
  EXPECT_EQ(health_line(404, "{\"faultstring\": \"Not found\"}"),
            "not serving: /readyz answered HTTP 404");
}

TEST(Health, AnUnreachableDaemonIsNotServing) {
  // Port 1 on loopback: nothing listens there, the connect is refused at once.
  std::ostringstream out, err;
  const ClientOptions options{.admin_url = "http://127.0.0.1:1"};
  EXPECT_EQ(run_health(options, true, out, err), 1);
  EXPECT_EQ(out.str().rfind("not serving: cannot reach vigil at http://127.0.0.1:1: ", 0), 0u)
      << out.str();
  EXPECT_EQ(run_health(options, false, out, err), 2);
  EXPECT_EQ(run_health({.admin_url = "https://127.0.0.1:1"}, true, out, err), 2);
}

TEST(MembersTable, HasBoxLinesAndTheReason) {
  auto table = format_members_table(rendered(), std::nullopt);
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_TRUE(table->starts_with("+-------")) << *table;
  EXPECT_NE(table->find("| pool "), std::string::npos);
  EXPECT_NE(table->find("| reason "), std::string::npos);
  EXPECT_NE(table->find("| since "), std::string::npos);
  const size_t row = table->find("| masters | master-02 ");
  ASSERT_NE(row, std::string::npos) << *table;
  const std::string down = table->substr(row, table->find('\n', row) - row);
  EXPECT_NE(down.find("| ERROR "), std::string::npos) << down;
  EXPECT_NE(down.find("| no "), std::string::npos) << down;
  EXPECT_NE(down.find("| connection refused | 12s   |"), std::string::npos) << down;
  EXPECT_NE(table->find("| no health monitor "), std::string::npos);
  // Every line is a rule or a row of the same width.
  std::istringstream lines(*table);
  std::string line, first;
  while (std::getline(lines, line)) {
    if (first.empty()) first = line;
    EXPECT_TRUE(line.starts_with("+") || line.starts_with("|")) << line;
    EXPECT_EQ(line.size(), first.size()) << line;
  }
}

TEST(MembersTable, FiltersByPoolAndNamesTheKnownPools) {
  auto masters = format_members_table(rendered(), "masters");
  ASSERT_TRUE(masters);
  EXPECT_EQ(masters->find("spare"), std::string::npos);
  auto missing = format_members_table(rendered(), "nope");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "no pool named nope; pools: masters, spare");
  EXPECT_FALSE(format_members_json(rendered(), "nope"));
}

TEST(MembersTable, ReadsAHandWrittenDocument) {
  auto table = format_members_table(kLiteral, "routers");
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_NE(table->find("| routers | router-a | fd00::1 |           443 |"), std::string::npos)
      << *table;
  EXPECT_NE(table->find("| timeout | 3m4s  |"), std::string::npos) << *table;
  EXPECT_FALSE(format_members_table("not json", std::nullopt));
  EXPECT_FALSE(format_members_table("{\"faultstring\": \"x\"}", std::nullopt));
}

TEST(MembersJson, IsAnArrayOfOctaviaMembers) {
  auto text = format_members_json(rendered(), "masters");
  ASSERT_TRUE(text) << text.error().message;
  const json::array members = json::parse(*text).as_array();
  ASSERT_EQ(members.size(), 3u);
  for (const char* key :
       {"id", "name", "address", "protocol_port", "weight", "backup", "admin_state_up",
        "operating_status", "provisioning_status", "monitor_address", "monitor_port", "pool",
        "health", "in_rotation", "check"}) {
    EXPECT_TRUE(members[1].as_object().contains(key)) << key;
  }
  EXPECT_EQ(members[1].at("operating_status"), "ERROR");
  EXPECT_EQ(members[1].at("check").at("reason"), "connection refused");
  EXPECT_EQ(members[1].at("pool"), "masters");
  EXPECT_EQ(json::parse(*format_members_json(rendered(), std::nullopt)).as_array().size(), 4u);
}

// `vigil member VERB [POOL/]MEMBER`: which member a name means, in a document the server renders.
TEST(MemberRef, ANameAloneMustBeUniqueAcrossPools) {
  model::LoadBalancerView lb = admin::testing::sample_view();
  lb.pools[1].members.push_back(lb.pools[0].members[1]);  // "spare" gets a master-02 too
  lb.pools[1].members.back().id = "spare-master-02";
  const std::string doc = admin::status_json(lb, admin::testing::kNow);
  struct Case {
    const char* target;
    int exit_code;         // 0: found
    const char* expected;  // the pool found, or a part of the message
  };
  const Case cases[] = {
      {.target = "master-01", .exit_code = 0, .expected = "masters"},
      {.target = "masters/master-02", .exit_code = 0, .expected = "masters"},
      {.target = "spare/master-02", .exit_code = 0, .expected = "spare"},
      {.target = "master-02", .exit_code = 2, .expected = "more than one pool: masters (id"},
      {.target = "master-09", .exit_code = 1, .expected = "no member named master-09 in any pool"},
      {.target = "spare/master-01", .exit_code = 1, .expected = "in a pool spare"},
  };
  for (const Case& c : cases) {
    auto ref = find_member_ref(doc, c.target);
    if (c.exit_code == 0) {
      ASSERT_TRUE(ref) << c.target << ": " << ref.error().message;
      EXPECT_EQ(ref->pool, c.expected) << c.target;
      continue;
    }
    ASSERT_FALSE(ref) << c.target;
    EXPECT_EQ(ref.error().exit_code, c.exit_code) << c.target;
    EXPECT_NE(ref.error().message.find(c.expected), std::string::npos) << ref.error().message;
  }
  EXPECT_EQ(active_sessions(doc, lb.pools[0].members[0].id), 4);
  EXPECT_EQ(active_sessions(doc, "nope"), std::nullopt);
}

TEST(MembersTable, ShowsAnOverrideInTheReason) {
  model::LoadBalancerView lb = admin::testing::sample_view();
  lb.pools[0].members[0].admin_override = model::AdminOverride{
      .state = model::AdminState::kDrain, .set_at = admin::testing::kNow - 12s, .by = "CLI"};
  auto table = format_members_table(admin::status_json(lb, admin::testing::kNow), "masters");
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_NE(table->find("| drain, set 12s ago by CLI; HTTP 200 "), std::string::npos) << *table;
}

TEST(StatusTree, DrawsEveryObject) {
  auto tree = format_status_tree(rendered());
  ASSERT_TRUE(tree) << tree.error().message;
  EXPECT_EQ(*tree,
            "loadbalancer vigil (DEGRADED)\n"
            "├─ listener api :6443 (DEGRADED)\n"
            "│  └─ pool masters round_robin HTTPS /readyz (DEGRADED)\n"
            "│     ├─ master-01 127.0.0.1:6443 ONLINE\n"
            "│     ├─ master-02 127.0.0.1:6444 ERROR  connection refused "
            "(3/3 failures) for 12s\n"
            "│     └─ master-03 127.0.0.1:6445 ONLINE\n"
            "└─ pool spare least_connections no monitor (ONLINE)\n"
            "   └─ <script>alert(\"x\")</script> 127.0.0.1:8080 NO_MONITOR\n");
  auto literal = format_status_tree(kLiteral);
  ASSERT_TRUE(literal);
  EXPECT_NE(literal->find("router-a [fd00::1]:443 ERROR  timeout (5 failures) for 3m4s, "
                          "recovering (1/2 passes)"),
            std::string::npos)
      << *literal;
}

TEST(StatusTree, JsonHasOctaviasShape) {
  auto text = format_status_tree_json(rendered());
  ASSERT_TRUE(text) << text.error().message;
  const json::value doc = json::parse(*text);
  const json::value& lb = doc.at("statuses").at("loadbalancer");
  EXPECT_EQ(lb.at("operating_status"), "DEGRADED");
  EXPECT_EQ(lb.at("provisioning_status"), "ACTIVE");
  const json::value& pool = lb.at("listeners").at(0).at("pools").at(0);
  EXPECT_EQ(pool.at("healthmonitor").at("type"), "HTTPS");
  EXPECT_EQ(pool.at("members").as_array().size(), 3u);
  EXPECT_EQ(pool.at("members").at(1).at("operating_status"), "ERROR");
  EXPECT_EQ(lb.at("pools").as_array().size(), 2u);
}

TEST(Table, PadsToTheWidestCell) {
  EXPECT_EQ(render_table({"a", "bb", "port"}, {{"xyz", "é", "80"}, {"", "", "6443"}}),
            "+-----+----+------+\n"
            "| a   | bb | port |\n"
            "+-----+----+------+\n"
            "| xyz | é  |   80 |\n"
            "|     |    | 6443 |\n"
            "+-----+----+------+\n");
  EXPECT_EQ(render_table({"a"}, {}), "+---+\n| a |\n+---+\n");
}

TEST(AdminUrl, Parses) {
  auto v4 = parse_admin_url("http://127.0.0.1:8404/");
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, "8404");
  EXPECT_EQ(v4->prefix, "");
  auto v6 = parse_admin_url("[::1]:9000/vigil/");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->prefix, "/vigil");
  EXPECT_EQ(parse_admin_url("http://vigil.example")->port, "80");
  EXPECT_FALSE(parse_admin_url("https://x:1"));
  EXPECT_FALSE(parse_admin_url("http://:80"));
  EXPECT_FALSE(parse_admin_url("http://x:80a"));
}

uint16_t closed_port() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  return a.local_endpoint().port();  // closed again when `a` goes
}

TEST(RunMembers, ClosedPortIsExit2WithAHint) {
  std::ostringstream out, err;
  const std::string url = "http://127.0.0.1:" + std::to_string(closed_port());
  EXPECT_EQ(run_members({.admin_url = url, .token = "t"}, std::nullopt, false, out, err), 2);
  EXPECT_EQ(err.str(), "cannot reach vigil at " + url +
                           ": Connection refused (is `vigil serve` running? set --admin or "
                           "VIGIL_ADMIN)\n");
  EXPECT_TRUE(out.str().empty());
  std::ostringstream err2;
  EXPECT_EQ(run_status({.admin_url = "https://x"}, false, out, err2), 2);
}

// The real server on a thread of its own, since the client blocks.
class EndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<admin::AdminServer>(
        io_, admin::Options{.listen = "127.0.0.1:0", .token = "secret"},
        [] { return std::vector{admin::testing::sample_view()}; });
    ASSERT_TRUE(server_->start());
    url_ = "http://" + server_->bound();
    thread_ = std::thread([this] { io_.run(); });
  }
  void TearDown() override {
    io_.stop();
    thread_.join();
  }
  boost::asio::io_context io_;
  std::unique_ptr<admin::AdminServer> server_;
  std::thread thread_;
  std::string url_;
};

TEST_F(EndToEnd, MembersStatusAndABadToken) {
  std::ostringstream out, err;
  EXPECT_EQ(run_members({.admin_url = url_, .token = "secret"}, "masters", false, out, err), 0)
      << err.str();
  EXPECT_NE(out.str().find("master-02"), std::string::npos);
  std::ostringstream tree, err2;
  EXPECT_EQ(run_status({.admin_url = url_, .token = "secret"}, false, tree, err2), 0);
  EXPECT_TRUE(tree.str().starts_with("loadbalancer vigil (DEGRADED)\n"));
  std::ostringstream none, denied;
  EXPECT_EQ(run_members({.admin_url = url_, .token = "wrong"}, std::nullopt, false, none, denied),
            1);
  EXPECT_EQ(denied.str(), "vigil at " + url_ +
                              " refused the token (401: Authentication required): check "
                              "--token-file / VIGIL_TOKEN\n");
  std::ostringstream unknown, err3;
  EXPECT_EQ(run_members({.admin_url = url_, .token = "secret"}, "x", true, unknown, err3), 1);
  EXPECT_EQ(err3.str(), "no pool named x; pools: masters, spare\n");
}

}  // namespace
}  // namespace vigil::cli
