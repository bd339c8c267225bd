// The Octavia objects' validation, defaults, conflicts and cascades (ops.h), on ApiState
// values without any server.
#include "admin/octavia/ops.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "admin/octavia/local_network.h"

namespace vigil::admin {
namespace {

class ApiOpsTest : public ::testing::Test {
 protected:
  OpContext context() {
    return OpContext{
        .now = "2024-05-01T12:00:00",
        .new_id = [this] { return fmt::format("00000000-0000-4000-8000-{:012}", ++ids_); },
        .is_local_address = is_local_address,
        .taken = {{.address = "", .port = 6443, .owner = "listener api of /etc/vigil.yaml"}},
    };
  }
  std::string lb() {
    return *create_loadbalancer(s_, R"({"loadbalancer": {"name": "k8s"}})", context());
  }
  std::string listener(const std::string& lb_id, int port = 16443) {
    return *create_listener(
        s_,
        fmt::format(R"({{"listener": {{"loadbalancer_id": "{}", "protocol": "TCP",
                            "protocol_port": {}}}}})",
                    lb_id, port),
        context());
  }
  std::string pool(const std::string& listener_id) {
    return *create_pool(s_,
                        fmt::format(R"({{"pool": {{"listener_id": "{}", "protocol": "TCP",
                                          "lb_algorithm": "ROUND_ROBIN", "name": "masters"}}}})",
                                    listener_id),
                        context());
  }
  std::string member(const std::string& pool_id, int port = 6443) {
    return *create_member(s_, pool_id,
                          fmt::format(R"({{"member": {{"address": "127.0.0.1",
                                                      "protocol_port": {}}}}})",
                                      port),
                          context());
  }
  std::string monitor(const std::string& pool_id, std::string_view extra = "") {
    return *create_healthmonitor(
        s_,
        fmt::format(R"({{"healthmonitor": {{"pool_id": "{}", "type": "TLS-HELLO", "delay": 5,
                           "timeout": 10, "max_retries": 4 {}}}}})",
                    pool_id, extra),
        context());
  }

  ApiState s_;
  int ids_ = 0;
};

TEST_F(ApiOpsTest, DefaultsAsOctaviaGivesThem) {
  const std::string lb_id = lb();
  const ApiLoadBalancer& lb = s_.loadbalancers.at(0);
  EXPECT_EQ(lb.id, lb_id);
  EXPECT_EQ(lb.vip_address, "127.0.0.1");
  EXPECT_EQ(lb.vip_subnet_id, local_subnet_id());
  EXPECT_TRUE(lb.admin_state_up);
  EXPECT_EQ(lb.topology, "SINGLE");
  EXPECT_EQ(lb.created_at, "2024-05-01T12:00:00");
  const std::string m_id = member(pool(listener(lb_id)));
  const ApiListener& l = s_.loadbalancers[0].listeners.at(0);
  EXPECT_EQ(l.connection_limit, -1);
  EXPECT_FALSE(l.timeout_client_data);
  const ApiPool& p = s_.loadbalancers[0].pools.at(0);
  EXPECT_EQ(l.default_pool_id, p.id);
  EXPECT_FALSE(p.healthmonitor);
  const ApiMember& m = p.members.at(0);
  EXPECT_EQ(m.id, m_id);
  EXPECT_EQ(m.weight, 1);
  EXPECT_FALSE(m.backup);
  EXPECT_TRUE(m.admin_state_up);
  EXPECT_EQ(m.monitor_port, 0);
}

TEST_F(ApiOpsTest, MonitorDefaultsByType) {
  const std::string p = pool(listener(lb()));
  monitor(p);  // the seed's own command: timeout 10 > delay 5 is accepted, as Octavia does
  const ApiHealthMonitor& tls = *s_.loadbalancers[0].pools[0].healthmonitor;
  EXPECT_EQ(tls.max_retries, 4);
  EXPECT_EQ(tls.max_retries_down, 3);
  EXPECT_EQ(tls.timeout, 10);
  EXPECT_EQ(tls.url_path, "");  // null for TLS-HELLO
  ASSERT_TRUE(delete_healthmonitor(s_, tls.id));
  ASSERT_TRUE(create_healthmonitor(s_,
                                   fmt::format(R"({{"healthmonitor": {{"pool_id": "{}",
      "type": "HTTPS", "delay": 1, "timeout": 1, "max_retries": 1}}}})",
                                               p),
                                   context()));
  const ApiHealthMonitor& https = *s_.loadbalancers[0].pools[0].healthmonitor;
  EXPECT_EQ(https.http_method, "GET");
  EXPECT_EQ(https.url_path, "/");
  EXPECT_EQ(https.expected_codes, "200");
  EXPECT_FALSE(https.http_version);
}

struct Refusal {
  std::string what;
  std::string body;  // a listener body for the load balancer "LB", or another op below
  int status;
  std::string message;  // a part of the faultstring
};

TEST_F(ApiOpsTest, ListenerRequestsAreValidated) {
  const std::string lb_id = lb();
  listener(lb_id, 8000);
  const std::vector<Refusal> cases = {
      {"HTTP", R"("protocol": "HTTP", "protocol_port": 80)", 400,
       "vigil is a TCP load balancer: protocol HTTP is not supported"},
      {"port 70000", R"("protocol": "TCP", "protocol_port": 70000)", 400,
       "Invalid input for field/attribute protocol_port. Value: '70000'. Value should be lower or "
       "equal to 65535"},
      {"port 0", R"("protocol": "TCP", "protocol_port": 0)", 400, "greater or equal to 1"},
      {"port as a word", R"("protocol": "TCP", "protocol_port": "eighty")", 400,
       "Value: 'eighty'. Expected an integer"},
      {"port as a long text", R"("protocol": "TCP", "protocol_port": "99999999999999999999")", 400,
       "lower or equal to 65535"},
      {"no port", R"("protocol": "TCP")", 400,
       "Invalid input for field/attribute protocol_port. Value: 'None'. Mandatory field missing."},
      {"no protocol", R"("protocol_port": 80)", 400, "protocol. Value: 'None'. Mandatory"},
      {"same port", R"("protocol": "TCP", "protocol_port": 8000)", 409,
       "Another Listener on this Load Balancer is already using protocol TCP and protocol_port "
       "8000"},
      {"the file's port", R"("protocol": "TCP", "protocol_port": 6443)", 409,
       "127.0.0.1:6443 is already used by listener api of /etc/vigil.yaml"},
      {"connection_limit 0", R"("protocol": "TCP", "protocol_port": 81, "connection_limit": 0)",
       400, "-1 (unlimited)"},
      {"unknown field", R"("protocol": "TCP", "protocol_port": 81, "colour": "red")", 400,
       "Unknown attribute for argument listener_.listener: colour"},
      {"L7", R"("protocol": "TCP", "protocol_port": 81, "insert_headers": {"X-F": "1"})", 400,
       "insert_headers is not supported by vigil"},
      {"name too long",
       R"("protocol": "TCP", "protocol_port": 81, "name": ")" + std::string(256, 'n') + "\"", 400,
       "maximum character requirement of 255"},
  };
  for (const Refusal& c : cases) {
    const std::string body =
        fmt::format(R"({{"listener": {{"loadbalancer_id": "{}", {}}}}})", lb_id, c.body);
    auto r = create_listener(s_, body, context());
    ASSERT_FALSE(r) << c.what;
    EXPECT_EQ(r.error().status, c.status) << c.what;
    EXPECT_NE(r.error().message.find(c.message), std::string::npos)
        << c.what << ": " << r.error().message;
  }
  EXPECT_EQ(s_.loadbalancers[0].listeners.size(), 1u);
  auto unknown_lb = create_listener(s_, R"({"listener": {"loadbalancer_id": "nope",
      "protocol": "TCP", "protocol_port": 90}})",
                                    context());
  ASSERT_FALSE(unknown_lb);
  EXPECT_EQ(unknown_lb.error().status, 404);
  EXPECT_EQ(unknown_lb.error().message, "Load Balancer nope not found.");
}

TEST_F(ApiOpsTest, MonitorRequestsAreValidated) {
  const std::string p = pool(listener(lb()));
  const std::vector<Refusal> cases = {
      {"PING", R"("type": "PING", "delay": 5, "timeout": 5, "max_retries": 3)", 400,
       "vigil does not run PING health monitors: use TCP, TLS-HELLO, HTTP or HTTPS"},
      {"not a type", R"("type": "BOGUS", "delay": 5, "timeout": 5, "max_retries": 3)", 400,
       "Invalid input for field/attribute type. Value: 'BOGUS'. Value should be one of: HTTP, "
       "HTTPS, PING, TCP, TLS-HELLO, UDP-CONNECT, SCTP"},
      {"max_retries 0", R"("type": "TCP", "delay": 5, "timeout": 5, "max_retries": 0)", 400,
       "Invalid input for field/attribute max_retries. Value: '0'. Value should be greater or "
       "equal to 1"},
      {"max_retries_down 11",
       R"("type": "TCP", "delay": 5, "timeout": 5, "max_retries": 1, "max_retries_down": 11)", 400,
       "lower or equal to 10"},
      {"no delay", R"("type": "TCP", "timeout": 5, "max_retries": 1)", 400,
       "delay. Value: 'None'. Mandatory field missing."},
      {"delay 0", R"("type": "TCP", "delay": 0, "timeout": 5, "max_retries": 1)", 400,
       "greater or equal to 1"},
      {"url_path on TCP", R"("type": "TCP", "delay": 5, "timeout": 5, "max_retries": 1,
       "url_path": "/readyz")",
       400, "url_path is not a valid option for health monitors of type TCP"},
      {"bad path", R"("type": "HTTP", "delay": 5, "timeout": 5, "max_retries": 1,
       "url_path": "/a b")",
       400, "url_path"},
      {"bad codes", R"("type": "HTTP", "delay": 5, "timeout": 5, "max_retries": 1,
       "expected_codes": "2xx")",
       400, "expected_codes"},
      {"method", R"("type": "HTTP", "delay": 5, "timeout": 5, "max_retries": 1,
       "http_method": "BREW")",
       400, "http_method"},
      {"domain without version", R"("type": "HTTP", "delay": 5, "timeout": 5, "max_retries": 1,
       "domain_name": "api.example")",
       400, "'http_version' must be specified"},
      {"version 2", R"("type": "HTTP", "delay": 5, "timeout": 5, "max_retries": 1,
       "http_version": 2.0)",
       400, "Value should be one of: 1.0, 1.1"},
      {"delay as bool", R"("type": "TCP", "delay": true, "timeout": 5, "max_retries": 1)", 400,
       "Expected an integer"},
  };
  for (const Refusal& c : cases) {
    const std::string body =
        fmt::format(R"({{"healthmonitor": {{"pool_id": "{}", {}}}}})", p, c.body);
    auto r = create_healthmonitor(s_, body, context());
    ASSERT_FALSE(r) << c.what;
    EXPECT_EQ(r.error().status, c.status) << c.what;
    EXPECT_NE(r.error().message.find(c.message), std::string::npos)
        << c.what << ": " << r.error().message;
  }
  EXPECT_FALSE(s_.loadbalancers[0].pools[0].healthmonitor);
  monitor(p);
  auto second = create_healthmonitor(s_,
                                     fmt::format(R"({{"healthmonitor": {{"pool_id": "{}",
      "type": "TCP", "delay": 5, "timeout": 5, "max_retries": 1}}}})",
                                                 p),
                                     context());
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().status, 409);
  EXPECT_EQ(second.error().message, "This pool already has a health monitor");
}

TEST_F(ApiOpsTest, MemberPoolAndLoadBalancerRequestsAreValidated) {
  const std::string lb_id = lb();
  const std::string l = listener(lb_id);
  const std::string p = pool(l);
  member(p);
  auto check = [&](ApiResult<std::string> r, int status, std::string_view message) {
    ASSERT_FALSE(r) << message;
    EXPECT_EQ(r.error().status, status);
    EXPECT_NE(r.error().message.find(message), std::string::npos) << r.error().message;
  };
  check(create_member(s_, p, R"({"member": {"address": "master-01", "protocol_port": 1}})",
                      context()),
        400, "Value should be IPv4 or IPv6 format");
  check(create_member(s_, p, R"({"member": {"address": "::1", "protocol_port": 1,
                                 "weight": 257}})",
                      context()),
        400, "lower or equal to 256");
  check(create_member(s_, p, R"({"member": {"address": "127.0.0.1", "protocol_port": 6443}})",
                      context()),
        409, "Another member on this pool is already using ip 127.0.0.1 on protocol_port 6443");
  check(create_member(s_, "nope", R"({"member": {}})", context()), 404, "Pool nope not found.");
  check(create_member(s_, p, R"({"member": {"address": "127.0.0.1", "protocol_port": 1}, "x": 1})",
                      context()),
        400, "Unknown attribute for argument member_: x");
  check(create_member(s_, p, R"({"member": )", context()), 400,
        "Request is not in valid JSON format");
  check(create_member(s_, p, R"([1, 2])", context()), 400, "{\"member\": {...}}");
  check(create_pool(s_,
                    fmt::format(R"({{"pool": {{"listener_id": "{}", "protocol": "TCP",
                        "lb_algorithm": "ROUND_ROBIN"}}}})",
                                l),
                    context()),
        409, "This listener already has a default pool");
  check(
      create_pool(s_, R"({"pool": {"protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"}})", context()),
      400, "Must provide at least one of: loadbalancer_id, listener_id");
  check(create_pool(s_,
                    fmt::format(R"({{"pool": {{"loadbalancer_id": "{}", "protocol": "TCP",
                        "lb_algorithm": "SOURCE_IP_PORT"}}}})",
                                lb_id),
                    context()),
        400, "ROUND_ROBIN, LEAST_CONNECTIONS, SOURCE_IP");
  check(create_pool(s_,
                    fmt::format(R"({{"pool": {{"loadbalancer_id": "{}", "protocol": "TCP",
                        "lb_algorithm": "ROUND_ROBIN", "session_persistence": {{"type":
                        "HTTP_COOKIE"}}}}}})",
                                lb_id),
                    context()),
        400, "Session persistence of type HTTP_COOKIE is not supported for TCP protocol pools.");
  check(create_pool(s_,
                    fmt::format(R"({{"pool": {{"loadbalancer_id": "{}", "protocol": "UDP",
                        "lb_algorithm": "ROUND_ROBIN"}}}})",
                                lb_id),
                    context()),
        400, "pool protocol UDP is not supported (TCP, PROXY and PROXYV2 are)");
  // On a listener, Octavia refuses UDP itself, in its own words.
  const std::string tcp_listener = listener(lb_id, 8100);
  check(create_pool(s_,
                    fmt::format(R"({{"pool": {{"listener_id": "{}", "protocol": "UDP",
                        "lb_algorithm": "ROUND_ROBIN"}}}})",
                                tcp_listener),
                    context()),
        400,
        "Validation failure: The pool protocol 'UDP' is invalid while the listener protocol is "
        "'TCP'.");
  check(create_loadbalancer(s_, R"({"loadbalancer": {"vip_address": "192.0.2.1"}})", context()),
        400, "vip_address 192.0.2.1 is not an address of this host");
  check(create_loadbalancer(s_, R"({"loadbalancer": {"vip_subnet_id": "x"}})", context()), 400,
        "Subnet x not found.");
  check(create_loadbalancer(s_, R"({"loadbalancer": {"provider": "amphora"}})", context()), 400,
        "Provider 'amphora' is not enabled.");
  check(create_loadbalancer(s_, R"({"loadbalancer": {"topology": "ACTIVE_ACTIVE"}})", context()),
        400,
        "Invalid input for field/attribute topology. Value: 'ACTIVE_ACTIVE'. Value should be one "
        "of: SINGLE, ACTIVE_STANDBY");
  ASSERT_TRUE(
      create_loadbalancer(s_, R"({"loadbalancer": {"topology": "ACTIVE_STANDBY"}})", context()));
  EXPECT_EQ(s_.loadbalancers.back().topology, "ACTIVE_STANDBY");
  // vigil_topology, the name vigil shows it by, is read too.
  ASSERT_TRUE(create_loadbalancer(s_, R"({"loadbalancer": {"vigil_topology": "ACTIVE_STANDBY"}})",
                                  context()));
  EXPECT_EQ(s_.loadbalancers.back().topology, "ACTIVE_STANDBY");
  check(create_loadbalancer(s_, R"({"loadbalancer": {"vigil_topology": "MESH"}})", context()), 400,
        "Invalid input for field/attribute vigil_topology. Value: 'MESH'.");
  // keepalived brings a pair's address (docs/ha.md): neither node need hold it yet.
  ASSERT_TRUE(create_loadbalancer(
      s_, R"({"loadbalancer": {"topology": "ACTIVE_STANDBY", "vip_address": "192.0.2.1"}})",
      context()));
  EXPECT_EQ(s_.loadbalancers.back().vip_address, "192.0.2.1");
  EXPECT_TRUE(create_loadbalancer(s_,
                                  R"({"loadbalancer": {"vip_address": "127.0.0.2",
      "vip_subnet_id": ")" + local_subnet_id() +
                                      "\"}}",
                                  context()));
}

TEST_F(ApiOpsTest, UpdatesChangeWhatOctaviaLetsChangeAndNullResets) {
  const std::string p = pool(listener(lb()));
  const std::string m = member(p);
  ASSERT_TRUE(update_member(s_, m, R"({"member": {"weight": 0, "admin_state_up": false,
                                       "name": "master-01"}})",
                            context()));
  const ApiMember& v = s_.loadbalancers[0].pools[0].members[0];
  EXPECT_EQ(v.weight, 0);
  EXPECT_FALSE(v.admin_state_up);
  EXPECT_EQ(v.name, "master-01");
  ASSERT_TRUE(
      update_member(s_, m, R"({"member": {"weight": null, "admin_state_up": true}})", context()));
  EXPECT_EQ(s_.loadbalancers[0].pools[0].members[0].weight, 1);
  auto immutable = update_member(s_, m, R"({"member": {"protocol_port": 1}})", context());
  ASSERT_FALSE(immutable);
  EXPECT_EQ(immutable.error().message,
            "Unknown attribute for argument member_.member: protocol_port");
  const std::string hm = monitor(p);
  ASSERT_TRUE(update_healthmonitor(
      s_, hm, R"({"healthmonitor": {"delay": 1, "max_retries_down": 5}})", context()));
  EXPECT_EQ(s_.loadbalancers[0].pools[0].healthmonitor->delay, 1);
  EXPECT_EQ(s_.loadbalancers[0].pools[0].healthmonitor->max_retries_down, 5);
  auto cleared = update_healthmonitor(s_, hm, R"({"healthmonitor": {"delay": null}})", context());
  ASSERT_FALSE(cleared);
  EXPECT_EQ(cleared.error().message, "None is not a valid option for delay");
  EXPECT_EQ(update_pool(s_, "nope", R"({"pool": {}})", context()).error().status, 404);
  // The CLI sends --connection-limit as a string; WSME converts it, so does vigil.
  ASSERT_TRUE(update_listener(s_, s_.loadbalancers[0].listeners[0].id,
                              R"({"listener": {"connection_limit": "10"}})", context()));
  EXPECT_EQ(s_.loadbalancers[0].listeners[0].connection_limit, 10);
}

TEST_F(ApiOpsTest, DeletesCascadeAsOctaviaDoes) {
  const std::string lb_id = lb();
  const std::string l = listener(lb_id);
  const std::string p = pool(l);
  member(p);
  monitor(p);
  auto refused = delete_loadbalancer(s_, lb_id, false);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().status, 400);
  EXPECT_EQ(refused.error().message,
            "Validation failure: Cannot delete Load Balancer " + lb_id + " - it has children");
  ASSERT_TRUE(delete_pool(s_, p));  // its members and monitor go with it
  EXPECT_TRUE(s_.loadbalancers[0].pools.empty());
  EXPECT_EQ(s_.loadbalancers[0].listeners[0].default_pool_id, "");
  ASSERT_TRUE(delete_loadbalancer(s_, lb_id, true));
  EXPECT_TRUE(s_.loadbalancers.empty());
  EXPECT_EQ(delete_listener(s_, l).error().status, 404);
}

// vigil's Octavia provider driver creates each object with Octavia's id; without one, vigil picks.
TEST_F(ApiOpsTest, CreatesKeepARequestedIdOnce) {
  const std::string lb_id = "5f0c7f38-7a7e-4d2b-9a55-0e6a3c1d2b01";
  auto created = create_loadbalancer(
      s_, fmt::format(R"({{"loadbalancer": {{"id": "{}", "name": "k8s"}}}})", lb_id), context());
  ASSERT_TRUE(created) << created.error().message;
  EXPECT_EQ(*created, lb_id);
  const std::string member_id = "5f0c7f38-7a7e-4d2b-9a55-0e6a3c1d2b02";
  const std::string pool_id = pool(listener(lb_id));
  auto m = create_member(s_, pool_id,
                         fmt::format(R"({{"member": {{"id": "{}", "address": "127.0.0.1",
                                                     "protocol_port": 6443}}}})",
                                     member_id),
                         context());
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(*m, member_id);
  EXPECT_NE(member(pool_id, 6444), member_id);  // no id asked: a new one

  // An id already in use, of whatever kind, is a conflict; a malformed one is a 400.
  auto again = create_healthmonitor(
      s_,
      fmt::format(R"({{"healthmonitor": {{"id": "{}", "pool_id": "{}", "type": "TCP",
                         "delay": 5, "timeout": 10, "max_retries": 4}}}})",
                  lb_id, pool_id),
      context());
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().status, 409);
  EXPECT_EQ(again.error().message, "Already an entity with that specified id.");
  auto malformed =
      create_loadbalancer(s_, R"({"loadbalancer": {"id": "lb-1", "name": "k8s"}})", context());
  ASSERT_FALSE(malformed);
  EXPECT_EQ(malformed.error().status, 400);
  EXPECT_EQ(s_.loadbalancers.size(), 1u);
}

}  // namespace
}  // namespace vigil::admin
