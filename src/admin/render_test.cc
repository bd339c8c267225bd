// The pure renderers on a hand-built view: Octavia shapes, /v1/status, metrics, the status page.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <charconv>
#include <set>
#include <sstream>

#include "admin/metrics.h"
#include "admin/metrics_test_view.h"
#include "admin/metrics_writer.h"
#include "admin/octavia/json.h"
#include "admin/sample_view_test.h"
#include "admin/status_json.h"
#include "admin/status_page.h"
#include "admin/text.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;
using testing::kNow;
using testing::sample_view;

void expect_keys(const json::object& o, std::initializer_list<const char*> keys) {
  for (const char* k : keys) EXPECT_TRUE(o.contains(k)) << "missing " << k << " in " << o;
}

// Exactly Octavia 11's keys (api/v2/types/*.py, as its API renders them), and vigil's `extra`.
void expect_octavia_keys(const json::object& o, std::set<std::string> octavia,
                         std::set<std::string> extra = {}) {
  for (const std::string& k : octavia) EXPECT_TRUE(o.contains(k)) << "missing " << k << " in " << o;
  for (const auto& kv : o) {
    const std::string k(kv.key());
    EXPECT_TRUE(octavia.contains(k) || extra.contains(k)) << "not Octavia's: " << k;
    // vigil's own fields share one prefix (docs/api.md), so that clients tell them apart.
    EXPECT_TRUE(octavia.contains(k) || k.starts_with("vigil_")) << "no vigil_ prefix: " << k;
  }
}

TEST(OctaviaJson, EveryObjectHasExactlyOctavia11sFields) {
  const auto lb = sample_view();
  const json::object o = octavia::loadbalancer(lb);
  expect_octavia_keys(o,
                      {"additional_vips",
                       "admin_state_up",
                       "availability_zone",
                       "created_at",
                       "description",
                       "flavor_id",
                       "id",
                       "listeners",
                       "name",
                       "operating_status",
                       "pools",
                       "project_id",
                       "provider",
                       "provisioning_status",
                       "tags",
                       "tenant_id",
                       "updated_at",
                       "vip_address",
                       "vip_network_id",
                       "vip_port_id",
                       "vip_qos_policy_id",
                       "vip_subnet_id"},
                      {"vigil_topology"});
  EXPECT_EQ(o.at("additional_vips"), json::array());
  EXPECT_EQ(o.at("vip_port_id"), json::value(octavia::vip_port_id(lb.id)));
  EXPECT_EQ(octavia::vip_port_id(lb.id), octavia::vip_port_id(lb.id));
  EXPECT_NE(octavia::vip_port_id(lb.id), lb.id);

  const json::object l = octavia::listener(lb, lb.listeners[0]);
  expect_octavia_keys(l, {"admin_state_up",
                          "allowed_cidrs",
                          "alpn_protocols",
                          "client_authentication",
                          "client_ca_tls_container_ref",
                          "client_crl_container_ref",
                          "connection_limit",
                          "created_at",
                          "default_pool_id",
                          "default_tls_container_ref",
                          "description",
                          "id",
                          "insert_headers",
                          "l7policies",
                          "loadbalancers",
                          "name",
                          "operating_status",
                          "project_id",
                          "protocol",
                          "protocol_port",
                          "provisioning_status",
                          "sni_container_refs",
                          "tags",
                          "tenant_id",
                          "timeout_client_data",
                          "timeout_member_connect",
                          "timeout_member_data",
                          "timeout_tcp_inspect",
                          "tls_ciphers",
                          "tls_versions",
                          "updated_at"});
  EXPECT_EQ(l.at("client_authentication"), "NONE");
  EXPECT_TRUE(l.at("tls_versions").is_null());
  EXPECT_TRUE(l.at("alpn_protocols").is_null());

  const json::object p = octavia::pool(lb, lb.pools[0]);
  expect_octavia_keys(p, {"admin_state_up",
                          "alpn_protocols",
                          "ca_tls_container_ref",
                          "created_at",
                          "crl_container_ref",
                          "description",
                          "healthmonitor_id",
                          "id",
                          "lb_algorithm",
                          "listeners",
                          "loadbalancers",
                          "members",
                          "name",
                          "operating_status",
                          "project_id",
                          "protocol",
                          "provisioning_status",
                          "session_persistence",
                          "tags",
                          "tenant_id",
                          "tls_ciphers",
                          "tls_container_ref",
                          "tls_enabled",
                          "tls_versions",
                          "updated_at"});
  EXPECT_EQ(p.at("tls_enabled"), false);
  EXPECT_TRUE(p.at("tls_container_ref").is_null());

  const json::object m = octavia::member(lb, lb.pools[0].members[0]);
  expect_octavia_keys(
      m,
      {"address", "admin_state_up", "backup", "created_at", "id", "monitor_address", "monitor_port",
       "name", "operating_status", "project_id", "protocol_port", "provisioning_status",
       "subnet_id", "tags", "tenant_id", "updated_at", "weight"},
      {"vigil_check", "vigil_admin_override"});

  const json::object hm = octavia::health_monitor(lb, lb.pools[0]);
  expect_octavia_keys(
      hm, {"admin_state_up", "created_at",       "delay",   "domain_name", "expected_codes",
           "http_method",    "http_version",     "id",      "max_retries", "max_retries_down",
           "name",           "operating_status", "pools",   "project_id",  "provisioning_status",
           "tags",           "tenant_id",        "timeout", "type",        "updated_at",
           "url_path"});
}

TEST(OctaviaJson, LoadBalancerHasOctaviasFields) {
  const auto lb = sample_view();
  const json::object o = octavia::loadbalancer(lb);
  expect_keys(o, {"id", "name", "description", "provisioning_status", "operating_status",
                  "admin_state_up", "project_id", "vip_address", "vip_port_id", "vip_subnet_id",
                  "vip_network_id", "listeners", "pools", "provider", "flavor_id",
                  "availability_zone", "created_at", "updated_at", "tags"});
  EXPECT_EQ(o.at("vip_address"), "0.0.0.0");
  EXPECT_EQ(o.at("provider"), "vigil");
  EXPECT_EQ(o.at("operating_status"), "DEGRADED");
  EXPECT_EQ(o.at("created_at"), "2024-05-01T12:00:00");
  EXPECT_TRUE(o.at("flavor_id").is_null());
  EXPECT_EQ(o.at("pools").as_array().size(), 2u);
  EXPECT_EQ(o.at("listeners").as_array().at(0).at("id"), json::value(lb.listeners[0].id));
}

TEST(OctaviaJson, MemberHasOctaviasFieldsAndTheLastCheck) {
  const auto lb = sample_view();
  const json::object down = octavia::member(lb, lb.pools[0].members[1]);
  expect_keys(down, {"id", "name", "address", "protocol_port", "weight", "backup", "admin_state_up",
                     "monitor_address", "monitor_port", "operating_status", "provisioning_status",
                     "subnet_id", "project_id", "created_at", "updated_at", "tags", "vigil_check"});
  EXPECT_EQ(down.at("operating_status"), "ERROR");
  EXPECT_TRUE(down.at("monitor_address").is_null());
  EXPECT_TRUE(down.at("monitor_port").is_null());
  const json::object& check = down.at("vigil_check").as_object();
  EXPECT_EQ(check.at("result"), "refused");
  EXPECT_EQ(check.at("reason"), "connection refused");
  expect_keys(check, {"http_code", "duration_ms", "failed_checks", "reused_connection", "at"});

  const json::object spare = octavia::member(lb, lb.pools[1].members[0]);
  EXPECT_EQ(spare.at("monitor_address"), "10.0.0.9");
  EXPECT_EQ(spare.at("monitor_port"), 9000);
  EXPECT_TRUE(spare.at("vigil_check").is_null());
}

TEST(OctaviaJson, PoolListenerAndMonitor) {
  const auto lb = sample_view();
  const json::object pool = octavia::pool(lb, lb.pools[0]);
  EXPECT_EQ(pool.at("lb_algorithm"), "ROUND_ROBIN");
  EXPECT_EQ(pool.at("protocol"), "TCP");
  EXPECT_EQ(pool.at("healthmonitor_id"), json::value(lb.pools[0].health_monitor_id));
  EXPECT_EQ(pool.at("members").as_array().size(), 3u);
  EXPECT_FALSE(octavia::pool(lb, lb.pools[1]).contains("healthmonitor_id"));  // as WSME
  EXPECT_EQ(octavia::pool(lb, lb.pools[1]).at("lb_algorithm"), "LEAST_CONNECTIONS");

  const json::object listener = octavia::listener(lb, lb.listeners[0]);
  EXPECT_EQ(listener.at("protocol"), "TCP");
  EXPECT_EQ(listener.at("protocol_port"), 6443);
  EXPECT_EQ(listener.at("connection_limit"), 50000);
  EXPECT_EQ(listener.at("timeout_client_data"), 3600000);
  EXPECT_EQ(listener.at("default_pool_id"), json::value(lb.pools[0].id));
  EXPECT_EQ(listener.at("loadbalancers").at(0).at("id"), json::value(lb.id));

  const json::object hm = octavia::health_monitor(lb, lb.pools[0]);
  EXPECT_EQ(hm.at("type"), "HTTPS");
  EXPECT_EQ(hm.at("delay"), 2);  // 1.5 s rounded up
  EXPECT_EQ(hm.at("timeout"), 2);
  EXPECT_EQ(hm.at("max_retries"), 2);
  EXPECT_EQ(hm.at("max_retries_down"), 3);
  EXPECT_EQ(hm.at("url_path"), "/readyz");
  EXPECT_EQ(hm.at("expected_codes"), "200");
  EXPECT_EQ(hm.at("http_method"), "GET");
  EXPECT_EQ(hm.at("pools").at(0).at("id"), json::value(lb.pools[0].id));
}

TEST(OctaviaJson, StatusTreeHasOctaviasShape) {
  const auto lb = sample_view();
  const json::object tree = octavia::status_tree(lb);
  const json::object& root = tree.at("statuses").at("loadbalancer").as_object();
  // Pools only under their listeners: the pool no listener uses is not in the tree.
  expect_octavia_keys(root, {"id", "name", "operating_status", "provisioning_status", "listeners"});
  const json::object& listener = root.at("listeners").at(0).as_object();
  expect_octavia_keys(listener, {"id", "name", "operating_status", "provisioning_status", "pools"});
  ASSERT_EQ(listener.at("pools").as_array().size(), 1u);
  const json::object& pool = listener.at("pools").at(0).as_object();
  expect_octavia_keys(
      pool, {"id", "name", "operating_status", "provisioning_status", "health_monitor", "members"});
  EXPECT_EQ(pool.at("health_monitor").at("type"), "HTTPS");
  expect_octavia_keys(pool.at("health_monitor").as_object(),
                      {"id", "name", "type", "operating_status", "provisioning_status"});
  const json::object& member = pool.at("members").at(1).as_object();
  expect_octavia_keys(member, {"id", "name", "address", "protocol_port", "operating_status",
                               "provisioning_status"});
  EXPECT_EQ(member.at("operating_status"), "ERROR");
}

TEST(OctaviaJson, StatusTreeLeavesOutAMonitorThatIsNot) {
  auto lb = sample_view();
  lb.listeners[0].default_pool_id = lb.pools[1].id;  // the pool without a monitor
  const json::object tree = octavia::status_tree(lb);
  const json::object& pool =
      tree.at("statuses").at("loadbalancer").at("listeners").at(0).at("pools").at(0).as_object();
  EXPECT_EQ(pool.at("id"), json::value(lb.pools[1].id));
  EXPECT_FALSE(pool.contains("health_monitor"));
  EXPECT_FALSE(pool.contains("healthmonitor"));
}

TEST(StatusJson, CarriesEveryField) {
  const auto lb = sample_view();
  const json::value doc = json::parse(status_json(lb, kNow));
  EXPECT_EQ(doc.at("loadbalancer").at("provisioning_status"), "ACTIVE");
  EXPECT_EQ(doc.at("loadbalancer").at("started_at"), "2024-05-01T12:00:00Z");
  EXPECT_EQ(doc.at("loadbalancer").at("source_file"), "/etc/vigil/vigil.yaml");
  EXPECT_EQ(doc.at("loadbalancer").at("vip_address"), "10.0.0.1");
  const json::object& m = doc.at("pools").at(0).at("members").at(1).as_object();
  expect_keys(m, {"id",
                  "name",
                  "address",
                  "protocol_port",
                  "weight",
                  "backup",
                  "admin_state_up",
                  "monitor_address",
                  "monitor_port",
                  "operating_status",
                  "health",
                  "in_rotation",
                  "check",
                  "state_since",
                  "state_seconds",
                  "consecutive_successes",
                  "consecutive_failures",
                  "active_connections",
                  "total_connections",
                  "connect_failures",
                  "last_disruption"});
  EXPECT_EQ(m.at("health"), "down");
  EXPECT_EQ(m.at("in_rotation"), false);
  EXPECT_EQ(m.at("state_seconds"), 12);
  EXPECT_EQ(m.at("check").at("reason"), "connection refused");
  EXPECT_EQ(m.at("check").at("result"), "refused");
  const json::value& d = m.at("last_disruption");
  EXPECT_EQ(d.at("status"), "ERROR");
  EXPECT_EQ(d.at("ongoing"), true);
  EXPECT_EQ(d.at("sessions_closed"), 3);
  EXPECT_EQ(d.at("retries"), 1);
  EXPECT_EQ(d.at("hedges"), 0);
  EXPECT_EQ(d.at("replays"), 2);
  EXPECT_EQ(d.at("failed_sessions"), 0);
  EXPECT_TRUE(doc.at("pools").at(0).at("members").at(0).at("last_disruption").is_null())
      << "never out of service";
  EXPECT_EQ(doc.at("pools").at(0).at("health_monitor").at("unhealthy_threshold"), 3);
  EXPECT_TRUE(doc.at("pools").at(1).at("health_monitor").is_null());
  EXPECT_TRUE(doc.at("pools").at(1).at("members").at(0).at("check").is_null());
  EXPECT_EQ(doc.at("listeners").at(0).at("bound"), "[::]:6443");
  EXPECT_EQ(doc.at("recent_transitions").at(0).at("member"), "master-02");
}

TEST(Metrics, EveryLineIsACommentOrASampleOfADeclaredFamily) {
  const std::string text = metrics_text(sample_view(), kNow);
  std::istringstream lines(text);
  std::string line;
  std::set<std::string> helped, typed;
  int samples = 0;
  while (std::getline(lines, line)) {
    ASSERT_FALSE(line.empty());
    if (line.starts_with("# HELP ")) {
      helped.insert(line.substr(7, line.find(' ', 7) - 7));
    } else if (line.starts_with("# TYPE ")) {
      const std::string rest = line.substr(7);
      const std::string name = rest.substr(0, rest.find(' '));
      const std::string type = rest.substr(rest.find(' ') + 1);
      EXPECT_TRUE(type == "gauge" || type == "counter" || type == "histogram") << line;
      EXPECT_TRUE(helped.contains(name)) << "TYPE before HELP: " << line;
      typed.insert(name);
    } else {
      std::string name = line.substr(0, std::min(line.find('{'), line.find(' ')));
      for (std::string_view suffix : {"_bucket", "_sum", "_count"}) {
        const std::string base = name.substr(0, name.size() - std::min(name.size(), suffix.size()));
        if (name.ends_with(suffix) && typed.contains(base)) name = base;
      }
      EXPECT_TRUE(typed.contains(name)) << "undeclared: " << line;
      const std::string value = line.substr(line.rfind(' ') + 1);
      EXPECT_NO_THROW((void)std::stod(value)) << line;
      ++samples;
    }
  }
  EXPECT_GT(samples, 20);
  for (const char* family :
       {"vigil_member_up", "vigil_member_status", "vigil_member_active_connections",
        "vigil_member_connections_total", "vigil_member_connect_failures_total",
        "vigil_member_check_duration_seconds", "vigil_member_consecutive_failures",
        "vigil_listener_active_connections", "vigil_listener_connections_total",
        "vigil_pool_members_in_rotation", "vigil_member_check_result",
        "vigil_member_received_bytes_total", "vigil_listener_sent_bytes_total",
        "vigil_listener_rejected_connections_total", "vigil_pool_status", "vigil_build_info",
        "process_open_fds", "vigil_config_last_reload_successful"}) {
    EXPECT_TRUE(typed.contains(family)) << family;
  }
  const model::LoadBalancerView view = sample_view();
  const std::string master_02 = view.pools.at(0).members.at(1).id;
  EXPECT_NE(text.find("vigil_member_up{lb=\"vigil\",pool=\"masters\",member=\"master-02\","
                      "address=\"127.0.0.1:6444\",member_id=\"" +
                      master_02 + "\"} 0\n"),
            std::string::npos);
  EXPECT_NE(text.find("member=\"master-02\",address=\"127.0.0.1:6444\",member_id=\"" + master_02 +
                      "\",status=\"ERROR\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("vigil_pool_members_in_rotation{lb=\"vigil\",pool=\"masters\",pool_id=\"" +
                      view.pools.at(0).id + "\"} 2\n"),
            std::string::npos);
  const std::string m02 =
      "member=\"master-02\",address=\"127.0.0.1:6444\",member_id=\"" + master_02 + "\"";
  EXPECT_NE(text.find("vigil_member_check_result{lb=\"vigil\",pool=\"masters\"," + m02 +
                      ",result=\"refused\"} 1\n"),
            std::string::npos);
  EXPECT_NE(
      text.find("vigil_member_last_change_seconds{lb=\"vigil\",pool=\"masters\"," + m02 + "} 12\n"),
      std::string::npos);
  // The histogram's buckets are cumulative: 3ms falls in le=0.005, 30ms in le=0.05.
  EXPECT_NE(text.find(m02 + ",le=\"0.0025\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find(m02 + ",le=\"0.005\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find(m02 + ",le=\"0.05\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find(m02 + ",le=\"+Inf\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("vigil_member_check_duration_seconds_count{lb=\"vigil\",pool=\"masters\"," +
                      m02 + "} 2\n"),
            std::string::npos);
  EXPECT_NE(
      text.find("vigil_member_check_failures_total{lb=\"vigil\",pool=\"masters\"," + m02 + "} 1\n"),
      std::string::npos);
  for (const auto& [family, value] : {std::pair{"vigil_member_sessions_closed_total", 3},
                                      {"vigil_member_retries_total", 1},
                                      {"vigil_member_hedges_total", 0},
                                      {"vigil_member_replays_total", 2},
                                      {"vigil_member_failed_sessions_total", 0}}) {
    EXPECT_NE(text.find(std::string(family) + "{lb=\"vigil\",pool=\"masters\"," + m02 + "} " +
                        std::to_string(value) + "\n"),
              std::string::npos)
        << family;
  }
  EXPECT_NE(text.find("vigil_listener_sent_bytes_total{lb=\"vigil\",listener=\"api\","
                      "listener_id=\"" +
                      view.listeners.at(0).id + "\"} 654321\n"),
            std::string::npos);
  EXPECT_NE(text.find("vigil_member_check_http_code{"), std::string::npos);
  // The hostile member name is escaped inside its label.
  EXPECT_NE(text.find("member=\"<script>alert(\\\"x\\\")</script>\""), std::string::npos);
}

// redirect_from's gauge: 1 while the rule is in the kernel, for listeners with the key only.
TEST(Metrics, ARedirectIsAGaugeOfItsListener) {
  model::LoadBalancerView view = sample_view();
  const std::string family = "vigil_listener_redirect_active{";
  EXPECT_EQ(metrics_text(view, kNow).find(family), std::string::npos);
  view.listeners.at(0).redirect =
      model::RedirectView{.from = "192.0.2.10:6443", .active = true, .reason = "1 usable member"};
  std::string text = metrics_text(view, kNow);
  size_t at = text.find(family);
  ASSERT_NE(at, std::string::npos) << text;
  std::string line = text.substr(at, text.find('\n', at) - at);
  EXPECT_NE(line.find("listener=\"api\""), std::string::npos) << line;
  EXPECT_TRUE(line.ends_with(",from=\"192.0.2.10:6443\"} 1")) << line;
  view.listeners.at(0).redirect->active = false;
  text = metrics_text(view, kNow);
  at = text.find(family);
  EXPECT_TRUE(text.substr(at, text.find('\n', at) - at).ends_with("} 0"));
}

TEST(Metrics, ObjectsSharingANameStillMakeDistinctSeries) {
  // Octavia lets two pools (and their members) carry one name; a scrape with a series twice
  // is rejected whole by Prometheus.
  model::LoadBalancerView view = sample_view();
  model::PoolView twin = view.pools.at(0);
  twin.id = "5f0c7a0e-twin";
  for (model::MemberView& m : twin.members) m.id += "-twin";
  view.pools.push_back(twin);
  view.listeners.push_back(view.listeners.at(0));
  view.listeners.back().id = "9a1b-twin";
  std::istringstream lines(metrics_text(view, kNow));
  std::set<std::string> series;
  std::string line;
  int samples = 0;
  while (std::getline(lines, line)) {
    if (line.starts_with("#")) continue;
    ++samples;
    EXPECT_TRUE(series.insert(line.substr(0, line.rfind(' '))).second) << "twice: " << line;
  }
  EXPECT_GT(samples, 40);
}

TEST(Metrics, TenThousandMembersEachHaveEveryFamily) {
  const model::LoadBalancerView big = testing::large_view(10000);
  const auto started = std::chrono::steady_clock::now();
  const std::string text = metrics_text(big, kNow);
  const auto took = std::chrono::steady_clock::now() - started;
  size_t up = 0, buckets = 0;
  for (size_t at = text.find("\nvigil_member_up{"); at != std::string::npos;
       at = text.find("\nvigil_member_up{", at + 1)) {
    ++up;
  }
  for (size_t at = text.find("_bucket{"); at != std::string::npos;
       at = text.find("_bucket{", at + 1)) {
    ++buckets;
  }
  EXPECT_EQ(up, 10000u);
  EXPECT_EQ(buckets, 10000u * (model::kCheckDurationBuckets.size() + 1));
  // A scrape every few seconds on the control thread: generous, even for a sanitizer build.
  EXPECT_LT(took, std::chrono::seconds(5)) << text.size() << " bytes";
}

TEST(Metrics, ShowTheOperatorsOverrideTheWeightInUseAndTimeOutOfService) {
  using namespace std::chrono_literals;
  model::LoadBalancerView lb = sample_view();
  model::MemberView& m01 = lb.pools.at(0).members.at(0);
  m01.admin_override = model::AdminOverride{
      .state = model::AdminState::kMaint, .weight = 3, .set_at = kNow - 30s, .by = "CLI"};
  const std::string text = metrics_text(lb, kNow);
  // A sample line of `family` for `member` ending in `extra` labels and `value` (empty: any).
  const auto has = [&](const std::string& family, const std::string& member,
                       const std::string& extra, const std::string& value) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with(family + "{lb=\"vigil\",pool=\"masters\",member=\"" + member + "\"") &&
          (value.empty() ? line.find(extra + "} ") != std::string::npos
                         : line.ends_with(extra + "} " + value))) {
        return true;
      }
    }
    return false;
  };
  const auto unix_text = [](model::WallTime t) {  // as the writer prints a double
    char buf[32];
    const double v = std::chrono::duration<double>(t.time_since_epoch()).count();
    return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  };
  const std::string set_at = unix_text(kNow - 30s);
  EXPECT_TRUE(has("vigil_member_admin_state", "master-01", ",state=\"maint\"", "1")) << text;
  EXPECT_TRUE(has("vigil_member_admin_state", "master-02", ",state=\"ready\"", "1"));
  EXPECT_TRUE(has("vigil_member_admin_override_timestamp_seconds", "master-01", "", set_at));
  EXPECT_FALSE(has("vigil_member_admin_override_timestamp_seconds", "master-02", "", ""));
  EXPECT_TRUE(has("vigil_member_weight", "master-01", "", "3"));
  EXPECT_TRUE(has("vigil_member_weight", "master-02", "", "1"));
  // master-02 left service 12 s ago and is still out; master-01 never left.
  EXPECT_TRUE(
      has("vigil_member_out_of_service_timestamp_seconds", "master-02", "", unix_text(kNow - 12s)));
  EXPECT_FALSE(has("vigil_member_out_of_service_timestamp_seconds", "master-01", "", ""));
}

TEST(Metrics, EscapesLabelValues) {
  EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  using namespace std::string_literals;
  EXPECT_EQ(escape_label_value("x\x1b[31my\0z\tw\x7f"s), "x\uFFFD[31my\uFFFDz\uFFFDw\uFFFD");
}

TEST(StatusPage, EscapesTextAndShowsTheReason) {
  const std::string page = status_page(sample_view(), kNow);
  EXPECT_EQ(page.find("<script>"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("connection refused (3/3 failures)"), std::string::npos);
  EXPECT_NE(page.find("<meta http-equiv=\"refresh\" content=\"5\">"), std::string::npos);
  EXPECT_NE(page.find("class=\"st ERROR\""), std::string::npos);
  EXPECT_NE(page.find(">12s</td>"), std::string::npos);
  EXPECT_EQ(page.find("http://"), std::string::npos);  // no external assets
  EXPECT_EQ(page.find("https://"), std::string::npos);
}

TEST(Text, Addresses) {
  EXPECT_EQ(host_port("::1", 80), "[::1]:80");
  EXPECT_EQ(host_port("10.0.0.1", 80), "10.0.0.1:80");
}

}  // namespace
}  // namespace vigil::admin
