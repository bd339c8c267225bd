// The client commands: formatting of /v1/status documents (a literal one, and one rendered by
// the admin API itself so the two cannot drift), the HTTP client's errors, and end to end
// against a real AdminServer.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/json.hpp>
#include <cerrno>
#include <sstream>
#include <thread>

#include "admin/fake_daemon_test.h"
#include "admin/sample_view_test.h"
#include "admin/server.h"
#include "admin/status_json.h"
#include "cli/check_code.h"
#include "cli/client.h"
#include "cli/commands.h"
#include "cli/printable.h"
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

// A listening socket on 127.0.0.1, port chosen by the kernel; closed with the object.
struct Listener {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  std::string port;
  Listener() {
    sockaddr_in a{.sin_family = AF_INET, .sin_port = 0, .sin_addr = {htonl(INADDR_LOOPBACK)}};
    socklen_t len = sizeof a;
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), len), 0);
    EXPECT_EQ(::listen(fd, 4), 0);
    EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
    port = std::to_string(ntohs(a.sin_port));
  }
  ~Listener() { ::close(fd); }
};

TEST(HoldConnection, EndsWhenTheDaemonClosesIt) {
  Listener listener;
  const AdminUrl url{.host = "127.0.0.1", .port = listener.port};
  // Nobody closes it: the kernel took the connection, the limit ends the wait.
  EXPECT_EQ(hold_connection(url, 50ms), HoldEnd::kQuiet);
  ::close(::accept(listener.fd, nullptr, nullptr));  // that first connection, left behind
  std::thread closer([&] { ::close(::accept(listener.fd, nullptr, nullptr)); });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(hold_connection(url, 10s), HoldEnd::kClosed);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  closer.join();
}

TEST(HoldConnection, RefusedWhenNothingListens) {
  std::string port;
  {
    Listener gone;
    port = gone.port;
  }
  const AdminUrl url{.host = "127.0.0.1", .port = port};
  EXPECT_EQ(hold_connection(url, 5s), HoldEnd::kRefused);
  // The same refusal through http_get carries its errno: `vigil health --track-file` tells a
  // missing vigil from a slow one by it.
  auto reply = http_get(url, "/readyz", "", 1s);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().code, ECONNREFUSED) << reply.error().message;
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

// `vigil member VERB [POOL/]MEMBER`: which members a name, id or address means, in a document
// the server renders.
TEST(MemberRefs, ANameActsOnEveryPoolThatHasItAndAPoolNarrowsIt) {
  model::LoadBalancerView lb = admin::testing::sample_view();
  lb.pools[1].members.push_back(lb.pools[0].members[1]);  // "spare" gets a master-02 too
  lb.pools[1].members.back().id = "spare-master-02";
  lb.pools[1].members.back().config.address = "10.0.0.12";
  lb.pools[0].members[1].config.address = "10.0.0.12";  // the same host in both pools
  const std::string doc = admin::status_json(lb, admin::testing::kNow);
  struct Case {
    const char* target;
    int exit_code;         // 0: found
    const char* expected;  // the pools found ("masters,spare"), or a part of the message
  };
  const Case cases[] = {
      {.target = "master-01", .exit_code = 0, .expected = "masters"},
      {.target = "masters/master-02", .exit_code = 0, .expected = "masters"},
      {.target = "spare/master-02", .exit_code = 0, .expected = "spare"},
      {.target = "master-02", .exit_code = 0, .expected = "masters,spare"},
      {.target = "10.0.0.12", .exit_code = 0, .expected = "masters,spare"},
      {.target = "spare/10.0.0.12", .exit_code = 0, .expected = "spare"},
      {.target = "master-09", .exit_code = 1, .expected = "no member named master-09 in any pool"},
      {.target = "spare/master-01", .exit_code = 1, .expected = "in a pool spare"},
  };
  for (const Case& c : cases) {
    auto refs = find_member_refs(doc, c.target);
    if (c.exit_code == 0) {
      ASSERT_TRUE(refs) << c.target << ": " << refs.error().message;
      std::string pools;
      for (const MemberRef& r : *refs) pools += (pools.empty() ? "" : ",") + r.pool;
      EXPECT_EQ(pools, c.expected) << c.target;
      continue;
    }
    ASSERT_FALSE(refs) << c.target;
    EXPECT_EQ(refs.error().exit_code, c.exit_code) << c.target;
    EXPECT_NE(refs.error().message.find(c.expected), std::string::npos) << refs.error().message;
  }
}

TEST(MembersTable, ShowsAnOverrideInTheReason) {
  model::LoadBalancerView lb = admin::testing::sample_view();
  lb.pools[0].members[0].admin_override = model::AdminOverride{
      .state = model::AdminState::kDrain, .set_at = admin::testing::kNow - 12s, .by = "CLI"};
  auto table = format_members_table(admin::status_json(lb, admin::testing::kNow), "masters");
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_NE(table->find("| drain, set 12s ago by CLI; HTTP 200 "), std::string::npos) << *table;
}

TEST(MembersTable, ShowsTheWeightInUseBesideTheConfiguredOne) {
  model::LoadBalancerView lb = admin::testing::sample_view();
  lb.pools[0].members[0].admin_override =
      model::AdminOverride{.weight = 3, .set_at = admin::testing::kNow - 5s, .by = "CLI"};
  auto table = format_members_table(admin::status_json(lb, admin::testing::kNow), "masters");
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_NE(table->find("| 3 (config 1) "), std::string::npos) << *table;
  EXPECT_NE(table->find("| weight 3, set 5s ago by CLI; "), std::string::npos) << *table;
}

TEST(MembersTable, ShowsTheLastChecksCodeAndDuration) {
  auto table = format_members_table(rendered(), std::nullopt);
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_NE(table->find("| check "), std::string::npos) << *table;
  EXPECT_NE(table->find("| duration "), std::string::npos) << *table;
  // master-01 passed its HTTPS check with a 200 in 3 ms; master-02 was refused in 1 ms.
  EXPECT_NE(table->find("| L7OK 200 | 3.0ms    |"), std::string::npos) << *table;
  EXPECT_NE(table->find("| L4CON    | 1.0ms    | connection refused |"), std::string::npos)
      << *table;
  // The member of the pool without a monitor was never checked.
  EXPECT_NE(table->find("| -        | -        | no health monitor "), std::string::npos) << *table;
  auto literal = format_members_table(kLiteral, "routers");
  ASSERT_TRUE(literal);
  EXPECT_NE(literal->find("| L4TOUT | -        | timeout |"), std::string::npos) << *literal;
}

struct CodeCase {
  const char* description;
  const char* monitor;
  const char* check;  // the member's "check" object
  const char* expected;
};

TEST(CheckCode, NamesTheLayerLikeHaproxy) {
  const CodeCase cases[] = {
      {.description = "TCP pass",
       .monitor = "TCP",
       .check = R"({"result":"ok"})",
       .expected = "L4OK"},
      {.description = "TLS pass",
       .monitor = "TLS-HELLO",
       .check = R"({"result":"ok"})",
       .expected = "L6OK"},
      {.description = "HTTPS pass",
       .monitor = "HTTPS",
       .check = R"({"result":"ok","http_code":204})",
       .expected = "L7OK 204"},
      {.description = "refused",
       .monitor = "HTTPS",
       .check = R"({"result":"refused"})",
       .expected = "L4CON"},
      {.description = "unreachable",
       .monitor = "HTTP",
       .check = R"({"result":"network_error"})",
       .expected = "L4CON"},
      {.description = "TCP timeout",
       .monitor = "TCP",
       .check = R"({"result":"timeout"})",
       .expected = "L4TOUT"},
      {.description = "HTTPS timeout: any layer",
       .monitor = "HTTPS",
       .check = R"({"result":"timeout"})",
       .expected = "TOUT"},
      {.description = "handshake",
       .monitor = "HTTPS",
       .check = R"({"result":"tls_failed"})",
       .expected = "L6RSP"},
      {.description = "status",
       .monitor = "HTTPS",
       .check = R"({"result":"bad_status","http_code":500})",
       .expected = "L7STS 500"},
      {.description = "not HTTP",
       .monitor = "HTTP",
       .check = R"({"result":"bad_response"})",
       .expected = "L7RSP"},
      {.description = "DNS",
       .monitor = "TCP",
       .check = R"({"result":"resolve_failed"})",
       .expected = "DNS"},
      {.description = "local",
       .monitor = "TCP",
       .check = R"({"result":"local_error"})",
       .expected = "SOCKERR"},
      {.description = "a newer daemon's result",
       .monitor = "TCP",
       .check = R"({"result":"quantum"})",
       .expected = "-"},
  };
  for (const CodeCase& c : cases) {
    EXPECT_EQ(check_code(c.monitor, json::parse(c.check).as_object()), c.expected) << c.description;
  }
  EXPECT_EQ(check_duration(0.42), "0.4ms");
  EXPECT_EQ(check_duration(12.4), "12ms");
  EXPECT_EQ(check_duration(2000), "2.0s");
}

TEST(Printable, EscapesWhatWouldDriveATerminal) {
  EXPECT_EQ(printable("master-01 é ü 日本"), "master-01 é ü 日本");
  EXPECT_EQ(printable("\x1b[2J\x1b]0;owned\x07"), "\\x1b[2J\\x1b]0;owned\\x07");
  EXPECT_EQ(printable("a\nb\tc\rd\x7f"), "a\\nb\\tc\\rd\\x7f");
  EXPECT_EQ(printable("\xc2\x9b"
                      "31m"),
            "\\u009b31m");  // C1 CSI, in UTF-8
  EXPECT_EQ(printable("\x9b"
                      "31m"),
            "\\x9b31m");  // the same, as a lone byte
  EXPECT_EQ(printable("abc\xe2\x80\xae"
                      "cba"),
            "abc\\u202ecba");  // right-to-left override
  EXPECT_EQ(printable("\xc0\xaf\xed\xa0\x80"), "\\xc0\\xaf\\xed\\xa0\\x80");  // overlong, surrogate
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
}

TEST(Table, EscapesControlCharactersInEveryCell) {
  const std::string table = render_table({"name", "reason"}, {{"\x1b[31mred", "bad\nline"}});
  EXPECT_EQ(table.find('\x1b'), std::string::npos) << table;
  EXPECT_NE(table.find("| \\x1b[31mred | bad\\nline |"), std::string::npos) << table;
}

TEST(MembersTable, EscapesNamesCreatedThroughTheApi) {
  std::string doc(kLiteral);
  doc.replace(doc.find("\"router-a\""), 10, "\"router-\\u001b[5ma\"");
  auto table = format_members_table(doc, std::nullopt);
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_EQ(table->find('\x1b'), std::string::npos) << *table;
  EXPECT_NE(table->find("router-\\x1b[5ma"), std::string::npos) << *table;
  auto tree = format_status_tree(doc);
  ASSERT_TRUE(tree);
  EXPECT_EQ(tree->find('\x1b'), std::string::npos) << *tree;
}

// admin.store type etcd: `vigil status` says first whether this node follows etcd, and why not.
TEST(StatusTree, SaysWhetherTheNodeFollowsTheSharedStore) {
  std::string doc(kLiteral);
  const std::string following =
      R"j({"store":{"name":"etcd (http://10.0.0.5:2379)","following":true,"reachable":true,)j"
      R"j("revision":41,"age_seconds":0,"last_error":"","refusing_writes":""},)j";
  auto tree = format_status_tree(following + doc.substr(1));
  ASSERT_TRUE(tree) << tree.error().message;
  EXPECT_TRUE(tree->starts_with("store etcd (http://10.0.0.5:2379): following at revision 41\n"))
      << *tree;
  const std::string lost =
      R"j({"store":{"name":"etcd (http://10.0.0.5:2379)","following":false,"reachable":false,)j"
      R"j("revision":41,"age_seconds":12,"last_error":"connection refused\u001b[2J",)j"
      R"j("refusing_writes":""},)j";
  tree = format_status_tree(lost + doc.substr(1));
  ASSERT_TRUE(tree) << tree.error().message;
  EXPECT_TRUE(tree->starts_with(
      "store etcd (http://10.0.0.5:2379): NOT following (unreachable; this node's copy is 12 s "
      "old): connection refused\\x1b[2J\n"))
      << *tree;
  EXPECT_NE(tree->find("loadbalancer "), std::string::npos);
}

constexpr std::string_view kSessions = R"({"sessions":[
  {"id":"s1","listener":"api","pool":"masters","member":"master-01","client":"10.0.0.5:51234",
   "member_address":"10.0.0.11:6443","age_seconds":12.5,"bytes_in":123,"bytes_out":456},
  {"id":"s2","listener":"api","pool":"masters","member":"master-02","client":"[fd00::7]:40000",
   "member_address":"10.0.0.12:6443","age_seconds":3725.0,"bytes_in":0,"bytes_out":1048576}],
  "total":2,"truncated":false})";

TEST(Sessions, TableHasOneRowPerSession) {
  auto table = format_sessions_table(kSessions);
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_EQ(*table,
            "+-----------------+----------+---------+-----------+----------------+------+"
            "----------+-----------+\n"
            "| client          | listener | pool    | member    | member_address | age  |"
            " bytes_in | bytes_out |\n"
            "+-----------------+----------+---------+-----------+----------------+------+"
            "----------+-----------+\n"
            "| 10.0.0.5:51234  | api      | masters | master-01 | 10.0.0.11:6443 | 12s  |"
            "      123 |       456 |\n"
            "| [fd00::7]:40000 | api      | masters | master-02 | 10.0.0.12:6443 | 1h2m |"
            "        0 |   1048576 |\n"
            "+-----------------+----------+---------+-----------+----------------+------+"
            "----------+-----------+\n"
            "2 sessions\n");
}

TEST(Sessions, SaysWhenTheListIsTruncated) {
  auto table = format_sessions_table(
      R"({"sessions":[{"client":"10.0.0.5:1","member":"m"}],"total":5000,"truncated":true})");
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_TRUE(table->ends_with("1 of 5000 sessions shown (vigil truncated the list)\n")) << *table;
  auto none = format_sessions_table(R"({"sessions":[],"total":0,"truncated":false})");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->ends_with("0 sessions\n")) << *none;
  EXPECT_FALSE(format_sessions_table("[]"));
  EXPECT_FALSE(format_sessions_table("{\"pools\": []}"));
}

TEST(Sessions, JsonIsTheDocument) {
  auto text = format_sessions_json(kSessions);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(json::parse(*text), json::parse(kSessions));
}

TEST(Sessions, FiltersArePercentEncoded) {
  EXPECT_EQ(sessions_path("", ""), "/v1/sessions");
  EXPECT_EQ(sessions_path("masters", ""), "/v1/sessions?pool=masters");
  EXPECT_EQ(sessions_path("", "master-01"), "/v1/sessions?member=master-01");
  EXPECT_EQ(sessions_path("a b&c", "m=1/é"), "/v1/sessions?pool=a%20b%26c&member=m%3D1%2F%C3%A9");
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

// redirect_from: a line under the listener, before its pool, present or ABSENT with the reason.
TEST(StatusTree, ShowsAListenersRedirect) {
  model::LoadBalancerView view = admin::testing::sample_view();
  view.listeners.at(0).redirect = model::RedirectView{
      .from = "192.0.2.10:6443", .active = false, .reason = "no usable member in pool masters"};
  auto tree = format_status_tree(admin::status_json(view, admin::testing::kNow));
  ASSERT_TRUE(tree) << tree.error().message;
  EXPECT_NE(tree->find("├─ listener api :6443 (DEGRADED)\n"
                       "│  ├─ redirect from 192.0.2.10:6443 ABSENT (no usable member in pool "
                       "masters)\n"
                       "│  └─ pool masters"),
            std::string::npos)
      << *tree;
  // Without redirect_from: no line.
  view.listeners.at(0).redirect.reset();
  EXPECT_EQ(format_status_tree(admin::status_json(view, admin::testing::kNow))->find("redirect"),
            std::string::npos);
}

TEST(StatusTree, JsonHasOctaviasShape) {
  auto text = format_status_tree_json(rendered());
  ASSERT_TRUE(text) << text.error().message;
  const json::value doc = json::parse(*text);
  const json::value& lb = doc.at("statuses").at("loadbalancer");
  EXPECT_EQ(lb.at("operating_status"), "DEGRADED");
  EXPECT_EQ(lb.at("provisioning_status"), "ACTIVE");
  const json::value& pool = lb.at("listeners").at(0).at("pools").at(0);
  EXPECT_EQ(pool.at("health_monitor").at("type"), "HTTPS");
  EXPECT_FALSE(pool.as_object().contains("healthmonitor"));
  EXPECT_EQ(pool.at("members").as_array().size(), 3u);
  EXPECT_EQ(pool.at("members").at(1).at("operating_status"), "ERROR");
  EXPECT_FALSE(lb.as_object().contains("pools"));  // pools only under their listeners
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

TEST(AdminUrl, ParsesAUnixSocket) {
  auto url = parse_admin_url("unix:/run/vigil/admin.sock");
  ASSERT_TRUE(url) << url.error().message;
  EXPECT_EQ(url->socket, "/run/vigil/admin.sock");
  EXPECT_EQ(url->prefix, "");
  auto relative = parse_admin_url("unix:admin.sock");
  ASSERT_FALSE(relative);
  EXPECT_EQ(relative.error().message,
            "admin URL unix:admin.sock: the socket's path must be an absolute path (like "
            "unix:/run/vigil/admin.sock)");
  EXPECT_FALSE(parse_admin_url("unix:"));
  EXPECT_FALSE(parse_admin_url("unix:/" + std::string(200, 'a')));
}

TEST(AdminUrl, DefaultsToTheConfigsSocketWhenItMayConnect) {
  struct Case {
    const char* description;
    const char* listen;
    const char* socket;
    bool may_connect;
    const char* expected;
  };
  const Case cases[] = {
      {.description = "a socket it may connect to",
       .listen = "127.0.0.1:8404",
       .socket = "/run/vigil/admin.sock",
       .may_connect = true,
       .expected = "unix:/run/vigil/admin.sock"},
      {.description = "a socket it may not connect to (not in group vigil, not running)",
       .listen = "127.0.0.1:9000",
       .socket = "/run/vigil/admin.sock",
       .may_connect = false,
       .expected = "http://127.0.0.1:9000"},
      {.description = "no socket",
       .listen = "[::1]:8404",
       .socket = "",
       .may_connect = false,
       .expected = "http://[::1]:8404"},
      {.description = "nothing",
       .listen = "",
       .socket = "",
       .may_connect = false,
       .expected = "http://127.0.0.1:8404"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(default_admin_url(c.listen, c.socket, c.may_connect), c.expected) << c.description;
  }
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

// The real server on a thread of its own, since the client blocks. Its reload answers what
// the fake daemon's reload_result holds.
class EndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<admin::AdminServer>(
        io_, admin::Options{.listen = "127.0.0.1:0", .token = "secret"}, daemon_);
    ASSERT_TRUE(server_->start());
    url_ = "http://" + server_->bound();
    thread_ = std::thread([this] { io_.run(); });
  }
  void TearDown() override {
    io_.stop();
    thread_.join();
  }
  boost::asio::io_context io_;
  // Its reload_result is set before the client calls and read on the server's thread.
  admin::testing::FakeDaemon daemon_;
  std::unique_ptr<admin::AdminServer> server_;
  std::thread thread_;
  std::string url_;
};

TEST_F(EndToEnd, ReloadReportsAppliedOrTheFilesErrors) {
  std::ostringstream out, err;
  EXPECT_EQ(run_reload({.admin_url = url_, .token = "secret"}, out, err), 0) << err.str();
  EXPECT_EQ(out.str(), "reloaded: the new configuration is applied\n");
  daemon_.reload_result = fail(
      "/etc/vigil/vigil.yaml has errors; the running configuration stays\n"
      "/etc/vigil/vigil.yaml:12: error: unknown key \"intervall\"\n"
      "/etc/vigil/vigil.yaml:30: error: port must be 1..65535");
  std::ostringstream out2, err2;
  EXPECT_EQ(run_reload({.admin_url = url_, .token = "secret"}, out2, err2), 1);
  EXPECT_EQ(out2.str(), "");
  EXPECT_EQ(err2.str(),
            "vigil reload: refused: /etc/vigil/vigil.yaml has errors; the running configuration "
            "stays\n"
            "  /etc/vigil/vigil.yaml:12: error: unknown key \"intervall\"\n"
            "  /etc/vigil/vigil.yaml:30: error: port must be 1..65535\n");
  std::ostringstream out3, err3;
  EXPECT_EQ(run_reload({.admin_url = url_, .token = "wrong"}, out3, err3), 1);
  EXPECT_NE(err3.str().find("refused the token"), std::string::npos) << err3.str();
  std::ostringstream out4, err4;
  EXPECT_EQ(
      run_reload({.admin_url = "http://127.0.0.1:" + std::to_string(closed_port())}, out4, err4),
      2);
}

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
