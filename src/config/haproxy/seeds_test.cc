// The haproxy.cfg files vigil must run as they are (src/config/haproxy/testdata/): the seeds'
// configs copied verbatim (the OpenShift article's two, the Octavia bug's amphora backends with
// and without a monitor) and the usual control-plane ones (kubeadm's HA guide, OpenShift UPI and
// on-prem, the OpenShift installer's template, an Octavia amphora). For each: what it maps to, and
// every diagnostic of the load, each naming its line: nothing vigil does not act on is dropped
// without a word.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "config/advice.h"
#include "config/haproxy/loader.h"
#include "config/report.h"
#include "config/test_util.h"
#include "config/timing.h"

namespace vigil::config {
namespace {

using namespace std::chrono_literals;
using model::Algorithm;
using model::MonitorType;
using testing::all;

std::string read(const std::string& name) {
  std::ifstream in(std::string(VIGIL_SOURCE_DIR) + "/src/config/haproxy/testdata/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

LoadResult load_testdata(const std::string& name) {
  const LoadResult r = load_haproxy_cfg(read(name), name);
  EXPECT_TRUE(r.ok()) << name << all(r.diagnostics);
  EXPECT_EQ(r.config.has_value(), r.ok());
  return r;
}

struct Expected {
  int line;
  std::string text;  // part of the message
};

// The load's diagnostics are exactly these (in file order), all warnings.
void expect_diagnostics(const LoadResult& r, const std::vector<Expected>& expected) {
  ASSERT_EQ(r.diagnostics.size(), expected.size()) << all(r.diagnostics);
  for (size_t i = 0; i < expected.size(); ++i) {
    const Diagnostic& d = r.diagnostics[i];
    EXPECT_FALSE(d.is_error()) << d.to_string();
    EXPECT_EQ(d.where.line, expected[i].line) << d.to_string();
    EXPECT_NE(d.message.find(expected[i].text), std::string::npos)
        << d.to_string() << "\n  expected: " << expected[i].text;
  }
}

void expect_members(const model::Pool& p, const std::vector<std::string>& addresses,
                    uint16_t port) {
  ASSERT_EQ(p.members.size(), addresses.size()) << p.name;
  for (size_t i = 0; i < addresses.size(); ++i) {
    EXPECT_EQ(p.members[i].address, addresses[i]) << p.name;
    EXPECT_EQ(p.members[i].port, port) << p.name;
  }
}

void expect_monitor(const model::Pool& p, MonitorType type, Duration interval, Duration timeout,
                    int rise, int fall) {
  ASSERT_TRUE(p.health_monitor) << p.name;
  const model::HealthMonitor& m = *p.health_monitor;
  EXPECT_EQ(m.type, type) << p.name;
  EXPECT_EQ(m.interval, interval) << p.name;
  EXPECT_EQ(m.fast_interval, interval) << p.name;  // HAProxy's fastinter defaults to inter
  EXPECT_EQ(m.timeout, timeout) << p.name;
  EXPECT_EQ(m.healthy_threshold, rise) << p.name;
  EXPECT_EQ(m.unhealthy_threshold, fall) << p.name;
}

void expect_listener(const model::Listener& l, std::string_view name, std::string_view address,
                     uint16_t port, std::string_view pool) {
  EXPECT_EQ(l.name, name);
  EXPECT_EQ(l.bind_address, address) << name;
  EXPECT_EQ(l.port, port) << name;
  EXPECT_EQ(l.pool, pool) << name;
}

bool advice_has(const LoadResult& r, std::string_view text) {
  for (const Diagnostic& d : advise(*r.process, *r.config)) {
    if (d.message.find(text) != std::string::npos) return true;
  }
  return false;
}

constexpr char kOctaviaPool[] = "7d5d4323-f382-4a85-a965-4fcedd8c77f2_199362ee-e305-4ebf-947a-d3c";

// The OpenShift article's first config: ssl-hello-chk on the API, plain checks elsewhere.
TEST(HaproxySeeds, OpenShiftArticleWithoutProbe) {
  const LoadResult r = load_testdata("openshift-article-ssl-hello.cfg");
  ASSERT_TRUE(r.config);
  expect_diagnostics(r, {});
  const model::Config& c = *r.config;
  EXPECT_EQ(c.name, "openshift-article-ssl-hello");
  ASSERT_EQ(c.listeners.size(), 4u);
  expect_listener(c.listeners[0], "K8s-api", "0.0.0.0", 6443, "api-6443");
  expect_listener(c.listeners[1], "Machine-config", "0.0.0.0", 22623, "config-22623");
  expect_listener(c.listeners[2], "Ingress-http", "0.0.0.0", 80, "http-80");
  expect_listener(c.listeners[3], "Ingress-https", "0.0.0.0", 443, "https-443");
  for (const model::Listener& l : c.listeners) {
    EXPECT_EQ(l.idle_timeout, 1h);
    EXPECT_TRUE(l.log_connections) << l.name;  // option tcplog in each section
  }
  ASSERT_EQ(c.pools.size(), 4u);
  const std::vector<std::string> masters = {"master-01.test2.example.local",
                                            "master-02.test2.example.local",
                                            "master-03.test2.example.local"};
  const std::vector<std::string> infras = {"infra-01.test2.example.local",
                                           "infra-02.test2.example.local",
                                           "infra-03.test2.example.local"};
  expect_members(c.pools[0], masters, 6443);
  expect_monitor(c.pools[0], MonitorType::kTlsHello, 2s, 2s, 2, 3);
  EXPECT_FALSE(c.pools[0].health_monitor->tls.verify);
  expect_members(c.pools[1], masters, 22623);
  expect_monitor(c.pools[1], MonitorType::kTcp, 2s, 2s, 2, 3);
  expect_members(c.pools[2], infras, 80);
  expect_monitor(c.pools[2], MonitorType::kTcp, 2s, 2s, 2, 3);
  expect_members(c.pools[3], infras, 443);
  expect_monitor(c.pools[3], MonitorType::kTlsHello, 2s, 2s, 2, 3);
  for (const model::Pool& p : c.pools) EXPECT_EQ(p.algorithm, Algorithm::kRoundRobin);
  // `vigil check` says a TLS handshake does not tell whether the API server is ready.
  EXPECT_TRUE(advice_has(r, "checks port 6443 with a TLS-HELLO monitor"));
}

// The article's second config: option httpchk GET /readyz + check check-ssl verify none inter 10s
// fall 3 rise 2, which takes up to 43 s to remove a dead API server: `vigil check` warns.
TEST(HaproxySeeds, OpenShiftArticleWithReadyzProbe) {
  const LoadResult r = load_testdata("openshift-article-readyz.cfg");
  ASSERT_TRUE(r.config);
  expect_diagnostics(r, {});
  const model::Config& c = *r.config;
  ASSERT_EQ(c.listeners.size(), 4u);
  ASSERT_EQ(c.pools.size(), 4u);
  const model::Pool& api = c.pools[0];
  EXPECT_EQ(api.name, "api-6443");
  expect_members(api,
                 {"master-01.test2.example.local", "master-02.test2.example.local",
                  "master-03.test2.example.local"},
                 6443);
  for (const model::Member& m : api.members) {
    EXPECT_EQ(m.weight, 1);
    EXPECT_TRUE(m.enabled);
    EXPECT_FALSE(m.backup);
  }
  expect_monitor(api, MonitorType::kHttps, 10s, 10s, 2, 3);
  const model::HealthMonitor& m = *api.health_monitor;
  EXPECT_EQ(m.http_method, "GET");
  EXPECT_EQ(m.path, "/readyz");
  EXPECT_EQ(m.expected_codes.to_string(), "200-399");
  EXPECT_FALSE(m.tls.verify);
  EXPECT_EQ(m.where.line, 23);  // option httpchk
  const auto timing = pool_timing(api);
  ASSERT_TRUE(timing);
  EXPECT_GT(timing->worst_mark_down, 30s);
  EXPECT_EQ(timing->worst_mark_down, 43s);
  EXPECT_TRUE(advice_has(r, "breaks OpenShift's rule"));
  const std::string report = check_report(r);
  EXPECT_NE(report.find("openshift-article-readyz.cfg:23: warning: pool \"api-6443\": a dead "
                        "member can stay in rotation for up to 43s"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("pool api-6443: 3 members, HTTPS GET /readyz every 10s; dead member out "
                        "within 43s"),
            std::string::npos)
      << report;
  expect_monitor(c.pools[1], MonitorType::kTcp, 2s, 2s, 2, 3);
  expect_monitor(c.pools[3], MonitorType::kTlsHello, 2s, 2s, 2, 3);
}

// The first seed's amphora backend as Octavia wrote it without a health monitor: NO_MONITOR.
TEST(HaproxySeeds, OctaviaAmphoraBackendWithoutMonitor) {
  const LoadResult r = load_testdata("octavia-seed-no-monitor.cfg");
  ASSERT_TRUE(r.config);
  expect_diagnostics(r, {{1, "is called \"" + std::string(kOctaviaPool) + "\""},
                         {1, "is not used by any listener"},
                         {2, "Unicode spaces"},
                         {4, "ignored: `fullconn 50000`"},
                         {5, "ignored: `option allbackups`"}});
  const model::Config& c = *r.config;
  EXPECT_TRUE(c.listeners.empty());
  ASSERT_EQ(c.pools.size(), 1u);
  const model::Pool& p = c.pools[0];
  EXPECT_EQ(p.name, kOctaviaPool);
  EXPECT_EQ(p.connect_timeout, 5s);
  EXPECT_FALSE(p.health_monitor);
  expect_members(p, {"10.5.5.23", "10.5.5.66"}, 6443);
  EXPECT_EQ(p.members[0].name, "91d6a444-6986-49c7-b46a-a17838d7a638");
  EXPECT_EQ(p.members[1].name, "0e91354d-1f60-40d2-b748-d4e6be491ebe");
  EXPECT_TRUE(advice_has(r, "has no health monitor: members are NO_MONITOR"));
}

// ... and with the TLS-HELLO monitor of `healthmonitor create --delay 5 --max-retries 4
// --timeout 10 --type TLS-HELLO` (Octavia's default max-retries-down is 3).
TEST(HaproxySeeds, OctaviaAmphoraBackendWithTlsHelloMonitor) {
  const LoadResult r = load_testdata("octavia-seed-tls-hello.cfg");
  ASSERT_TRUE(r.config);
  expect_diagnostics(r, {{1, "is called"},
                         {1, "is not used by any listener"},
                         {2, "Unicode spaces"},
                         {6, "ignored: `fullconn 50000`"},
                         {7, "ignored: `option allbackups`"}});
  const model::Pool& p = r.config->pools[0];
  expect_members(p, {"10.5.5.23", "10.5.5.66"}, 6443);
  expect_monitor(p, MonitorType::kTlsHello, 5s, 10s, 4, 3);
  EXPECT_FALSE(p.health_monitor->tls.verify);
  EXPECT_EQ(p.health_monitor->where.line, 5);
}

// The seed's defaults section, in front of its backend, gives vigil's own behaviour.
TEST(HaproxySeeds, OctaviaDefaultsOfTheSeed) {
  const LoadResult r = load_haproxy_cfg(
      read("octavia-seed-defaults.cfg") + read("octavia-seed-tls-hello.cfg"), "amphora.cfg");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.config->pools[0].retries, 3);
  EXPECT_TRUE(testing::has_warning(r.diagnostics, 2, "ignored: `log global`"));
  EXPECT_TRUE(testing::has_warning(r.diagnostics, 5, "ignored: `option splice-request`"));
  EXPECT_TRUE(testing::has_warning(r.diagnostics, 7, "ignored: `option http-keep-alive`"));
  for (const Diagnostic& d : r.diagnostics) {
    EXPECT_NE(d.where.line, 3) << d.to_string();  // retries 3
    EXPECT_NE(d.where.line, 4) << d.to_string();  // option redispatch: what vigil does
  }
}

TEST(HaproxySeeds, KubeadmHaGuide) {
  const LoadResult r = load_testdata("kubeadm-ha.cfg");
  ASSERT_TRUE(r.config);
  expect_diagnostics(r, {
                            {7, "ignored: `log /dev/log local0`"},
                            {8, "ignored: `log /dev/log local1 notice`"},
                            {9, "ignored: `daemon`"},
                            {17, "ignored: `log global`"},
                            {18, "ignored: `option httplog`: applies to HTTP mode only"},
                            {19, "ignored: `option dontlognull`"},
                            {20, "ignored: `option http-server-close`"},
                            {21, "ignored: `option forwardfor except 127.0.0.0/8`"},
                            {24, "ignored: `timeout http-request 10s`"},
                            {25, "ignored: `timeout queue 20s`"},
                            {27, "the idle_timeout of listener \"apiserver\" is 20s"},
                            {29, "ignored: `timeout http-keep-alive 10s`"},
                            {45,
                             "ignored: `option httpchk GET /healthz`: replaced by `option "
                             "ssl-hello-chk` at line 48"},
                            {46, "ignored: http-check rules"},
                            {50, "ignored: default-server parameter `maxconn 250`"},
                            {50, "ignored: default-server parameter `maxqueue 256`"},
                            {50, "ignored: `downinter 5s`"},
                        });
  const model::Config& c = *r.config;
  ASSERT_EQ(c.listeners.size(), 1u);
  expect_listener(c.listeners[0], "apiserver", "0.0.0.0", 8443, "apiserver");
  EXPECT_EQ(c.listeners[0].idle_timeout, 20s);  // kept, with the warning
  ASSERT_EQ(c.pools.size(), 1u);
  const model::Pool& p = c.pools[0];
  EXPECT_EQ(p.connect_timeout, 5s);
  EXPECT_EQ(p.retries, 1);
  expect_members(p, {"192.168.0.11", "192.168.0.12", "192.168.0.13"}, 6443);
  for (const model::Member& m : p.members) EXPECT_EQ(m.weight, 100);
  EXPECT_EQ(p.slow_start, 60s);  // default-server's, so every server agrees
  // HAProxy keeps the last check option, ssl-hello-chk.
  expect_monitor(p, MonitorType::kTlsHello, 10s, 10s, 2, 2);
}

TEST(HaproxySeeds, KubeadmHaGuideWithHttpCheckRules) {
  const LoadResult r = load_testdata("kubeadm-ha-http-check.cfg");
  ASSERT_TRUE(r.config);
  expect_diagnostics(r, {
                            {4, "ignored: `log stdout format raw local0`"},
                            {5, "ignored: `daemon`"},
                            {9, "ignored: `log global`"},
                            {10, "ignored: `option httplog`"},
                            {11, "ignored: `option dontlognull`"},
                            {12, "ignored: `option http-server-close`"},
                            {13, "ignored: `option forwardfor except 127.0.0.0/8`"},
                            {16, "ignored: `timeout http-request 10s`"},
                            {17, "ignored: `timeout queue 20s`"},
                            {19, "the idle_timeout of listener \"apiserver\" is 35s"},
                            {21, "ignored: `timeout http-keep-alive 10s`"},
                        });
  const model::Pool& p = r.config->pools[0];
  EXPECT_EQ(p.name, "apiserverbackend");
  expect_monitor(p, MonitorType::kHttps, 2s, 10s, 2, 3);
  EXPECT_EQ(p.health_monitor->http_method, "GET");
  EXPECT_EQ(p.health_monitor->path, "/healthz");
  EXPECT_EQ(p.health_monitor->expected_codes.to_string(), "200");
  EXPECT_FALSE(p.health_monitor->tls.verify);
  expect_members(p, {"192.168.0.11", "192.168.0.12", "192.168.0.13"}, 6443);
}

TEST(HaproxySeeds, OpenShiftUpiFrontendsBackendsAndStats) {
  const LoadResult r = load_testdata("openshift-upi.cfg");
  ASSERT_TRUE(r.config);
  expect_diagnostics(r, {
                            {4, "ignored: `log 127.0.0.1 local2`"},
                            {5, "ignored: `pidfile /var/run/haproxy.pid`"},
                            {6, "ignored: `maxconn 4000`: vigil has no process-wide"},
                            {7, "ignored: `daemon`"},
                            {11, "ignored: `log global`"},
                            {12, "ignored: `option dontlognull`"},
                            {13, "ignored: `option http-server-close`"},
                            {16, "ignored: `timeout http-request 10s`"},
                            {17, "ignored: `timeout queue 1m`"},
                            {19,
                             "the idle_timeout of listeners \"openshift-api-server\", "
                             "\"machine-config-server\", \"ingress-http\", \"ingress-https\" "
                             "is 1m"},
                            {21, "ignored: `timeout http-keep-alive 10s`"},
                            {25, "ignored: listen \"stats\" only serves HAProxy's statistics"},
                            {28, "ignored: `stats enable`"},
                            {29, "ignored: `stats uri /`"},
                        });
  const model::Config& c = *r.config;
  ASSERT_EQ(c.listeners.size(), 4u);
  expect_listener(c.listeners[0], "openshift-api-server", "0.0.0.0", 6443, "openshift-api-server");
  expect_listener(c.listeners[1], "machine-config-server", "0.0.0.0", 22623,
                  "machine-config-server");
  expect_listener(c.listeners[2], "ingress-http", "0.0.0.0", 80, "ingress-http");
  expect_listener(c.listeners[3], "ingress-https", "0.0.0.0", 443, "ingress-https");
  for (const model::Listener& l : c.listeners) {
    EXPECT_EQ(l.max_connections, 3000);
    EXPECT_EQ(l.idle_timeout, 1min);
  }
  ASSERT_EQ(c.pools.size(), 4u);
  for (const model::Pool& p : c.pools) {
    EXPECT_EQ(p.algorithm, Algorithm::kSourceIp) << p.name;
    EXPECT_EQ(p.connect_timeout, 10s) << p.name;
    // timeout check 10s, but a connect-only check takes min(timeout connect, inter) = 2s.
    expect_monitor(p, MonitorType::kTcp, 2s, 2s, 2, 3);
  }
  expect_members(c.pools[0], {"192.168.7.20", "192.168.7.21", "192.168.7.22", "192.168.7.23"},
                 6443);
  EXPECT_EQ(c.pools[0].members[0].name, "bootstrap");
  expect_members(c.pools[3], {"192.168.7.11", "192.168.7.12"}, 443);
}

TEST(HaproxySeeds, OpenShiftOnPremListens) {
  const LoadResult r = load_testdata("openshift-onprem.cfg");
  ASSERT_TRUE(r.config);
  expect_diagnostics(r, {
                            {4, "ignored: `log 127.0.0.1 local2`"},
                            {5, "ignored: `pidfile /var/run/haproxy.pid`"},
                            {6, "ignored: `maxconn 4000`"},
                            {7, "ignored: `daemon`"},
                            {10, "ignored: `log global`"},
                            {11, "ignored: `option dontlognull`"},
                            {12, "ignored: `option http-server-close`"},
                            {15, "ignored: `timeout http-request 10s`"},
                            {16, "ignored: `timeout queue 1m`"},
                            {18, "the idle_timeout of listeners \"api-server-6443\""},
                            {20, "ignored: `timeout http-keep-alive 10s`"},
                        });
  const model::Config& c = *r.config;
  ASSERT_EQ(c.listeners.size(), 4u);
  expect_listener(c.listeners[0], "api-server-6443", "0.0.0.0", 6443, "api-server-6443");
  ASSERT_EQ(c.pools.size(), 4u);
  const model::Pool& api = c.pools[0];
  expect_monitor(api, MonitorType::kHttps, 10s, 10s, 3, 2);
  EXPECT_EQ(api.health_monitor->path, "/readyz");
  ASSERT_EQ(api.members.size(), 4u);
  EXPECT_EQ(api.members[0].name, "bootstrap");
  EXPECT_EQ(api.members[0].address, "bootstrap.ocp4.example.com");
  EXPECT_TRUE(api.members[0].backup);
  EXPECT_FALSE(api.members[1].backup);
  const model::Pool& mcs = c.pools[1];
  expect_monitor(mcs, MonitorType::kTcp, 1s, 1s, 2, 3);
  EXPECT_TRUE(mcs.members[0].backup);
  EXPECT_EQ(c.pools[2].algorithm, Algorithm::kSourceIp);
  EXPECT_EQ(c.pools[3].members[1].port, 80);
  // inter 10s fall 2 with timeout check 10s: 11 + 11 + 10 = 32 s.
  EXPECT_EQ(pool_timing(api)->worst_mark_down, 32s);
}

TEST(HaproxySeeds, OpenShiftInstallerTemplate) {
  const LoadResult r = load_testdata("openshift-installer-vsphere.cfg");
  ASSERT_TRUE(r.config);
  expect_diagnostics(r, {
                            {6, "ignored: `log /var/run/haproxy/haproxy-log.sock local0`"},
                            {7, "ignored: `option dontlognull`"},
                            {9, "ignored: `timeout http-request 30s`"},
                            {10, "ignored: `timeout queue 1m`"},
                        });
  const model::Config& c = *r.config;
  ASSERT_EQ(c.listeners.size(), 2u);
  expect_listener(c.listeners[0], "api-server", "192.168.1.5", 6443, "api-server");
  EXPECT_EQ(c.listeners[0].idle_timeout, 24h);
  EXPECT_EQ(c.listeners[0].max_connections, 20000);
  const model::Pool& api = c.pools[0];
  expect_monitor(api, MonitorType::kHttps, 1s, 1s, 3, 2);
  EXPECT_EQ(api.members[0].name, "192.168.1.11");
  EXPECT_LT(pool_timing(api)->worst_mark_down, 30s);
}

TEST(HaproxySeeds, OctaviaAmphora) {
  const LoadResult r = load_testdata("octavia-amphora.cfg");
  ASSERT_TRUE(r.config);
  expect_diagnostics(r, {
                            {3, "ignored: `daemon`"},
                            {4, "ignored: `user nobody`"},
                            {5, "ignored: `log /run/rsyslog/octavia/log local0`"},
                            {6, "ignored: `log /run/rsyslog/octavia/log local1 notice`"},
                            {7, "ignored: `stats socket /var/lib/octavia/"},
                            {8, "ignored: `maxconn 1000000`"},
                            {11, "ignored: `log global`"},
                            {14, "ignored: `option splice-request`"},
                            {15, "ignored: `option splice-response`"},
                            {16, "ignored: `option http-keep-alive`"},
                            {18,
                             "ignored: the `peers 3f9e0c448c2f4b2d9f6e1d2b6c7a8e90_peers` "
                             "section and its 2 lines"},
                            {27,
                             "the idle_timeout of listener "
                             "\"5b2a7c1e-0d6f-4c1b-9a57-2f6e1d8c4b3a\" is 50s"},
                            {28,
                             "ignored: `log-format 0f7b9c2d44e34a4e8b8c0c6d5e4f3a2b "
                             "3f9e0c44-8c2f-4b2d-9f6e-1d2b6c7a8e90..."},
                            {35,
                             "the idle_timeout of listener "
                             "\"8d4e6f2a-1b3c-4d5e-9f60-7a8b9c0d1e2f\" is 50s"},
                            {37,
                             "is called \"9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f_5b2a7c1e-0d6f-"
                             "4c1b-9a57-2f6\""},
                            {42, "ignored: `fullconn 1000000`"},
                            {43, "ignored: `option allbackups`"},
                            {50,
                             "is called \"1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d_8d4e6f2a-1b3c-"
                             "4d5e-9f60-7a8\""},
                            {53, "has no `expire`: HAProxy keeps a client until newer ones"},
                            {58, "ignored: `fullconn 1000000`"},
                            {59, "ignored: `option allbackups`"},
                        });
  const model::Config& c = *r.config;
  ASSERT_EQ(c.listeners.size(), 2u);
  expect_listener(c.listeners[0], "5b2a7c1e-0d6f-4c1b-9a57-2f6e1d8c4b3a", "10.0.0.5", 6443,
                  "9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f_5b2a7c1e-0d6f-4c1b-9a57-2f6");
  EXPECT_EQ(c.listeners[0].max_connections, 1000000);
  EXPECT_EQ(c.listeners[0].idle_timeout, 50s);
  ASSERT_EQ(c.pools.size(), 2u);
  const model::Pool& api = c.pools[0];
  EXPECT_EQ(api.retries, 3);
  EXPECT_EQ(api.connect_timeout, 5s);
  expect_monitor(api, MonitorType::kTlsHello, 5s, 10s, 4, 3);
  expect_members(api, {"10.0.0.11", "10.0.0.12", "10.0.0.13"}, 6443);
  EXPECT_EQ(api.members[0].name, "6f0a2b1c-3d4e-4f5a-8b6c-7d8e9f0a1b2c");
  const model::Pool& mcs = c.pools[1];
  EXPECT_EQ(mcs.algorithm, Algorithm::kSourceIp);
  expect_monitor(mcs, MonitorType::kHttps, 5s, 10s, 2, 3);
  EXPECT_EQ(mcs.health_monitor->path, "/healthz");
  EXPECT_EQ(mcs.health_monitor->expected_codes.to_string(), "200,202");  // rstatus 200|202
  EXPECT_TRUE(mcs.members[2].backup);
  // SOURCE_IP persistence, as the amphora's `stick-table type ip` and `stick on src` say.
  EXPECT_EQ(mcs.session_persistence.type, model::Persistence::kSourceIp);
  EXPECT_EQ(mcs.session_persistence.timeout, 360s);
  EXPECT_EQ(api.session_persistence.type, model::Persistence::kNone);
}

// Every file: `vigil check` reports on it without an error.
TEST(HaproxySeeds, CheckReportOfEveryFile) {
  for (const char* name :
       {"kubeadm-ha.cfg", "kubeadm-ha-http-check.cfg", "openshift-upi.cfg", "openshift-onprem.cfg",
        "openshift-installer-vsphere.cfg", "octavia-amphora.cfg", "octavia-seed-no-monitor.cfg",
        "octavia-seed-tls-hello.cfg", "openshift-article-ssl-hello.cfg",
        "openshift-article-readyz.cfg"}) {
    const std::string report = check_report(load_testdata(name));
    EXPECT_NE(report.find("\nOK: "), std::string::npos) << name << "\n" << report;
    EXPECT_EQ(report.find("error"), std::string::npos) << name << "\n" << report;
  }
}

}  // namespace
}  // namespace vigil::config
