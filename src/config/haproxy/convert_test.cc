// `vigil convert`: to_yaml() writes YAML that load_yaml() reads back into the same model, for
// every haproxy.cfg of testdata and for YAML configs using every key.
#include "config/haproxy/convert.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "config/haproxy/loader.h"
#include "config/test_util.h"

namespace vigil::config {
namespace {

using testing::all;

std::string read(const std::string& name) {
  std::ifstream in(std::string(VIGIL_SOURCE_DIR) + "/src/config/haproxy/testdata/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every field of the model but ids, source file and lines.
void expect_same(const model::Process& p, const model::Process& q, const std::string& label) {
  EXPECT_EQ(p.workers, q.workers) << label;
  EXPECT_EQ(p.admin.listen, q.admin.listen) << label;
  EXPECT_EQ(p.admin.token_file, q.admin.token_file) << label;
  EXPECT_EQ(p.admin.state_file, q.admin.state_file) << label;
}

void expect_same(const model::Config& a, const model::Config& b, const std::string& label) {
  EXPECT_EQ(a.name, b.name) << label;
  ASSERT_EQ(a.listeners.size(), b.listeners.size()) << label;
  for (size_t i = 0; i < a.listeners.size(); ++i) {
    const model::Listener& x = a.listeners[i];
    const model::Listener& y = b.listeners[i];
    EXPECT_EQ(x.name, y.name) << label;
    EXPECT_EQ(x.bind_address, y.bind_address) << label << " " << x.name;
    EXPECT_EQ(x.port, y.port) << label << " " << x.name;
    EXPECT_EQ(x.pool, y.pool) << label << " " << x.name;
    EXPECT_EQ(x.max_connections, y.max_connections) << label << " " << x.name;
    EXPECT_EQ(x.idle_timeout, y.idle_timeout) << label << " " << x.name;
    EXPECT_EQ(x.dead_peer_timeout, y.dead_peer_timeout) << label << " " << x.name;
    EXPECT_EQ(x.member_idle_timeout, y.member_idle_timeout) << label << " " << x.name;
    EXPECT_EQ(x.allowed_cidrs, y.allowed_cidrs) << label << " " << x.name;
  }
  ASSERT_EQ(a.pools.size(), b.pools.size()) << label;
  for (size_t i = 0; i < a.pools.size(); ++i) {
    const model::Pool& p = a.pools[i];
    const model::Pool& q = b.pools[i];
    const std::string where = label + " pool " + p.name;
    EXPECT_EQ(p.name, q.name) << where;
    EXPECT_EQ(p.algorithm, q.algorithm) << where;
    EXPECT_EQ(p.connect_timeout, q.connect_timeout) << where;
    EXPECT_EQ(p.retries, q.retries) << where;
    EXPECT_EQ(p.fail_open, q.fail_open) << where;
    EXPECT_EQ(p.hedge_after, q.hedge_after) << where;
    EXPECT_EQ(p.slow_start, q.slow_start) << where;
    EXPECT_EQ(p.first_byte_timeout, q.first_byte_timeout) << where;
    EXPECT_EQ(p.replay, q.replay) << where;
    EXPECT_EQ(p.shutdown_sessions_on_down, q.shutdown_sessions_on_down) << where;
    EXPECT_EQ(p.dead_peer_timeout, q.dead_peer_timeout) << where;
    EXPECT_EQ(p.session_persistence, q.session_persistence) << where;
    ASSERT_EQ(p.health_monitor.has_value(), q.health_monitor.has_value()) << where;
    if (p.health_monitor) {
      const model::HealthMonitor& m = *p.health_monitor;
      const model::HealthMonitor& n = *q.health_monitor;
      EXPECT_EQ(m.type, n.type) << where;
      EXPECT_EQ(m.path, n.path) << where;
      EXPECT_EQ(m.http_method, n.http_method) << where;
      EXPECT_EQ(m.host, n.host) << where;
      EXPECT_EQ(m.expected_codes.to_string(), n.expected_codes.to_string()) << where;
      EXPECT_EQ(m.interval, n.interval) << where;
      EXPECT_EQ(m.fast_interval, n.fast_interval) << where;
      EXPECT_EQ(m.timeout, n.timeout) << where;
      EXPECT_EQ(m.healthy_threshold, n.healthy_threshold) << where;
      EXPECT_EQ(m.unhealthy_threshold, n.unhealthy_threshold) << where;
      EXPECT_EQ(m.tls.verify, n.tls.verify) << where;
      EXPECT_EQ(m.tls.ca_file, n.tls.ca_file) << where;
      EXPECT_EQ(m.tls.server_name, n.tls.server_name) << where;
      EXPECT_EQ(m.tls.client_cert, n.tls.client_cert) << where;
      EXPECT_EQ(m.tls.client_key, n.tls.client_key) << where;
      EXPECT_EQ(m.bearer_token_file, n.bearer_token_file) << where;
    }
    ASSERT_EQ(p.members.size(), q.members.size()) << where;
    for (size_t j = 0; j < p.members.size(); ++j) {
      const model::Member& m = p.members[j];
      const model::Member& n = q.members[j];
      EXPECT_EQ(m.name, n.name) << where;
      EXPECT_EQ(m.address, n.address) << where << " " << m.name;
      EXPECT_EQ(m.port, n.port) << where << " " << m.name;
      EXPECT_EQ(m.weight, n.weight) << where << " " << m.name;
      EXPECT_EQ(m.backup, n.backup) << where << " " << m.name;
      EXPECT_EQ(m.enabled, n.enabled) << where << " " << m.name;
      EXPECT_EQ(m.monitor_address, n.monitor_address) << where << " " << m.name;
      EXPECT_EQ(m.monitor_port, n.monitor_port) << where << " " << m.name;
    }
  }
}

// to_yaml() of a load's model loads back into the same model, with no diagnostic but "not used"
// warnings.
void expect_round_trip(const LoadResult& r, const std::string& label) {
  const model::Config& config = *r.config;
  const std::string yaml = to_yaml(*r.process, config);
  const LoadResult back = load_yaml(yaml, "converted.yaml");
  ASSERT_TRUE(back.ok()) << label << "\n" << yaml << all(back.diagnostics);
  for (const Diagnostic& d : back.diagnostics) {
    // The only warning load_yaml gives such a file: pools no listener uses (seed backends).
    EXPECT_NE(d.message.find("is not used by any listener"), std::string::npos)
        << label << ": " << d.to_string() << "\n"
        << yaml;
  }
  expect_same(*r.process, *back.process, label);
  expect_same(config, *back.config, label);
  // And writing it again gives the same text.
  EXPECT_EQ(to_yaml(*back.process, *back.config), yaml) << label;
}

TEST(HaproxyConvert, EveryTestdataConfigRoundTrips) {
  for (const char* name :
       {"kubeadm-ha.cfg", "kubeadm-ha-http-check.cfg", "openshift-upi.cfg", "openshift-onprem.cfg",
        "openshift-installer-vsphere.cfg", "octavia-amphora.cfg", "octavia-seed-no-monitor.cfg",
        "octavia-seed-tls-hello.cfg", "openshift-article-ssl-hello.cfg",
        "openshift-article-readyz.cfg"}) {
    const LoadResult r = load_haproxy_cfg(read(name), name);
    ASSERT_TRUE(r.ok()) << name << all(r.diagnostics);
    expect_round_trip(r, name);
  }
}

TEST(HaproxyConvert, YamlConfigsRoundTripToo) {
  const LoadResult design = testing::load(testing::kDesignExample);
  ASSERT_TRUE(design.ok()) << all(design.diagnostics);
  expect_round_trip(design, "design example");

  const LoadResult every_key = testing::load(R"(
name: "true"
workers: 3
admin: {listen: "[::1]:9000", token_file: "/etc/vigil/a token", state_file: /var/lib/x.json}
listeners:
  - {name: a, bind: ":6443", pool: "null", max_connections: 7, idle_timeout: 1h30m,
     dead_peer_timeout: 1.5s, member_idle_timeout: 50s, allowed_cidrs: [10.0.0.0/8, "fd00::/8"]}
  - {name: b, bind: "[fd00::1]:443", pool: p2}
  - {name: c, bind: "127.0.0.1:0", pool: p3}
pools:
  - name: "null"
    algorithm: least_connections
    connect_timeout: 250ms
    retries: 0
    fail_open: false
    hedge_after: 0s
    slow_start: 45s
    first_byte_timeout: 0s
    replay: always
    shutdown_sessions_on_down: false
    dead_peer_timeout: 3s
    health_monitor:
      type: HTTP
      path: "/readyz?verbose&x=#1"
      http_method: HEAD
      host: "api.example.com:6443"
      expected_codes: "200-204,301"
      interval: 2500ms
      fast_interval: 1500us
      timeout: 750ms
      healthy_threshold: 10
      unhealthy_threshold: 1
      bearer_token_file: "/etc/vigil/token: \"quoted\" \\ back"
    members:
      - {name: "yes", address: "fd00::1", port: 1, weight: 0, backup: true, enabled: false,
         monitor_address: m.example.com, monitor_port: 65535}
  - name: p2
    first_byte_timeout: 2500ms
    replay: never
    health_monitor:
      type: TLS-HELLO
      tls: {verify: true, ca_file: /ca.pem, server_name: "*.example.com", client_cert: /c,
            client_key: /k}
    members: []
  - name: p3
    health_monitor: none
    members:
      - {name: m, address: "2.example", port: 2}
)");
  ASSERT_TRUE(every_key.ok()) << all(every_key.diagnostics);
  expect_round_trip(every_key, "every key");
}

TEST(HaproxyConvert, CharactersYamlMustEscapeRoundTrip) {
  // U+0085 and U+2028 are line breaks to YAML and U+0080..U+009F, U+FFFE and U+FFFF may not be
  // written out: each is escaped, and reads back as itself.
  const LoadResult r = testing::load(R"(
pools:
  - name: p
    health_monitor:
      type: HTTP
      host: "a\x85b\u2028c\u2029d\x80\x9f\uFFFE\uFFFF\u00e9e"
      path: "/caf\u00e9"
    members: []
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.config->pools[0].health_monitor->host,
            "a\xc2\x85"
            "b\xe2\x80\xa8"
            "c\xe2\x80\xa9"
            "d\xc2\x80\xc2\x9f\xef\xbf\xbe\xef\xbf\xbf\xc3\xa9"
            "e");
  expect_round_trip(r, "escapes");
}

TEST(HaproxyConvert, ReportListsWhatWasNotCarriedOver) {
  const LoadResult r = load_haproxy_cfg(R"(global
    daemon
frontend api
    bind :6443
    default_backend masters
backend masters
    option httpchk GET /readyz
    server m1 10.0.0.11:6443 check check-ssl verify none inter 5s slowstart 10s
)",
                                        "/etc/haproxy/haproxy.cfg");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(convert_report(r),
            "# vigil config converted by `vigil convert` from /etc/haproxy/haproxy.cfg\n"
            "# Not carried over, or changed on the way (1):\n"
            "#   /etc/haproxy/haproxy.cfg:2: warning: ignored: `daemon`: HAProxy process "
            "setting; run vigil under systemd (vigil serve stays in the foreground)\n"
            "\n"
            "name: haproxy\n"
            "listeners:\n"
            "  - name: api\n"
            "    bind: \"0.0.0.0:6443\"\n"
            "    pool: masters\n"
            "pools:\n"
            "  - name: masters\n"
            "    slow_start: 10s\n"
            "    health_monitor:\n"
            "      type: HTTPS\n"
            "      path: /readyz\n"
            "      http_method: GET\n"
            "      expected_codes: \"200-399\"\n"
            "      interval: 5s\n"
            "      fast_interval: 5s\n"
            "      timeout: 5s\n"
            "      healthy_threshold: 2\n"
            "      unhealthy_threshold: 3\n"
            "      tls:\n"
            "        verify: false\n"
            "    members:\n"
            "      - {name: m1, address: 10.0.0.11, port: 6443}\n");
}

TEST(HaproxyConvert, SlowstartBecomesThePoolsSlowStart) {
  const LoadResult r = load_haproxy_cfg(R"(listen api
    bind :6443
    server m1 10.0.0.11:6443 slowstart 10s
)",
                                        "lb.cfg");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_TRUE(r.diagnostics.empty()) << all(r.diagnostics);
  const std::string yaml = to_yaml(*r.process, *r.config);
  EXPECT_NE(yaml.find("  - name: api\n    slow_start: 10s\n"), std::string::npos) << yaml;
  expect_round_trip(r, "slowstart");
}

TEST(HaproxyConvert, SourceRulesBecomeAllowedCidrsAndTheRestIsReported) {
  const LoadResult r = load_haproxy_cfg(R"(frontend api
    bind :6443
    acl trusted src 10.0.0.0/8 192.168.0.0/16
    tcp-request connection reject unless trusted
    default_backend masters
frontend other
    bind :8443
    tcp-request connection reject if { src 203.0.113.0/24 }
    default_backend masters
backend masters
    server m1 10.0.0.11:6443
)",
                                        "lb.cfg");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const std::string yaml = to_yaml(*r.process, *r.config);
  EXPECT_NE(yaml.find("    allowed_cidrs: [\"10.0.0.0/8\", \"192.168.0.0/16\"]\n"),
            std::string::npos)
      << yaml;
  EXPECT_EQ(r.config->listeners.at(1).allowed_cidrs, std::vector<std::string>{});
  const std::string report = convert_report(r);
  EXPECT_NE(report.find("lb.cfg:8: warning: not converted: `tcp-request connection reject if { "
                        "src 203.0.113.0/24 }`: it rejects the clients of networks"),
            std::string::npos)
      << report;
  EXPECT_EQ(report.find("lb.cfg:3"), std::string::npos) << report;  // the acl was used
  expect_round_trip(r, "allowed_cidrs");
}

TEST(HaproxyConvert, ReportOfACleanConfig) {
  const LoadResult r =
      load_haproxy_cfg("listen api\n  bind :6443\n  server m1 10.0.0.11:6443\n", "lb.cfg");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const std::string report = convert_report(r);
  EXPECT_TRUE(
      report.starts_with("# vigil config converted by `vigil convert` from lb.cfg\n"
                         "# Everything was carried over.\n\nname: lb\n"))
      << report;
}

TEST(HaproxyConvert, ReportOfAFailedLoadListsTheErrors) {
  const LoadResult r = load_haproxy_cfg("frontend f\n  bind :1\n  default_backend nope\n", "x.cfg");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(convert_report(r),
            "# vigil config converted by `vigil convert` from x.cfg\n"
            "# It could not be converted:\n"
            "#   x.cfg:3: error: backend \"nope\" is not defined\n");
}

}  // namespace
}  // namespace vigil::config
