// The haproxy.cfg importer directive by directive: what each maps to, and what is reported.
// The configs people use (the seeds, kubeadm, OpenShift, Octavia) are in haproxy/seeds_test.cc.
#include "config/haproxy/loader.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "config/test_util.h"
#include "config/timing.h"

namespace vigil::config {
namespace {

using namespace std::chrono_literals;
using model::Algorithm;
using model::MonitorType;
using testing::all;
using testing::has_error;
using testing::has_warning;

LoadResult load(std::string_view text) {
  if (text.starts_with('\n')) text.remove_prefix(1);
  return load_haproxy_cfg(text, "haproxy.cfg");
}

// Loads `text`, which must load; the result's config.
model::Config loaded(std::string_view text) {
  const LoadResult r = load(text);
  EXPECT_TRUE(r.ok()) << all(r.diagnostics);
  return r.config.value_or(model::Config{});
}

const model::Pool& pool(const model::Config& c, std::string_view name) {
  static const model::Pool kNone;
  const model::Pool* p = c.find_pool(name);
  EXPECT_NE(p, nullptr) << name;
  return p != nullptr ? *p : kNone;
}

const model::HealthMonitor& monitor(const model::Config& c, std::string_view name) {
  static const model::HealthMonitor kNone;
  const model::Pool& p = pool(c, name);
  EXPECT_TRUE(p.health_monitor) << name;
  return p.health_monitor ? *p.health_monitor : kNone;
}

// A backend `b` behind a frontend on :6443, with `body` as the backend's lines.
std::string backend(std::string_view body) {
  return "frontend f\n  bind :6443\n  default_backend b\nbackend b\n" + std::string(body);
}

TEST(HaproxyLoad, FrontendBackendPairBecomesListenerAndPool) {
  const LoadResult r = load(R"(
global
    nbthread 4
defaults
    mode tcp
    timeout connect 3s
    retries 2
    maxconn 2000
frontend api
    bind 10.0.0.5:6443
    default_backend masters
backend masters
    balance leastconn
    server m1 10.0.0.11:6443 check
    server m2 m2.example.com:6443 check weight 3 backup disabled addr 10.1.0.12 port 8443
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_TRUE(r.diagnostics.empty()) << all(r.diagnostics);
  const model::Config& c = *r.config;
  EXPECT_EQ(c.name, "haproxy");
  EXPECT_EQ(c.source_file, "haproxy.cfg");
  EXPECT_EQ(r.process->workers, 4);
  ASSERT_EQ(c.listeners.size(), 1u);
  const model::Listener& l = c.listeners[0];
  EXPECT_EQ(l.name, "api");
  EXPECT_EQ(l.bind_address, "10.0.0.5");
  EXPECT_EQ(l.port, 6443);
  EXPECT_EQ(l.pool, "masters");
  EXPECT_EQ(l.max_connections, 2000);
  EXPECT_EQ(l.idle_timeout, 1h);  // no client/server timeout: vigil's default
  EXPECT_EQ(l.where.line, 9);
  ASSERT_EQ(c.pools.size(), 1u);
  const model::Pool& p = c.pools[0];
  EXPECT_EQ(p.name, "masters");
  EXPECT_EQ(p.where.line, 11);
  EXPECT_EQ(p.algorithm, Algorithm::kLeastConnections);
  EXPECT_EQ(p.connect_timeout, 3s);
  EXPECT_EQ(p.retries, 2);
  ASSERT_EQ(p.members.size(), 2u);
  EXPECT_EQ(p.members[0].name, "m1");
  EXPECT_EQ(p.members[0].address, "10.0.0.11");
  EXPECT_EQ(p.members[0].port, 6443);
  EXPECT_EQ(p.members[0].weight, 1);
  EXPECT_FALSE(p.members[0].backup);
  EXPECT_TRUE(p.members[0].enabled);
  EXPECT_EQ(p.members[0].where.line, 13);
  EXPECT_EQ(p.members[1].address, "m2.example.com");  // host names stay names
  EXPECT_EQ(p.members[1].weight, 3);
  EXPECT_TRUE(p.members[1].backup);
  EXPECT_FALSE(p.members[1].enabled);
  EXPECT_EQ(p.members[1].monitor_address, "10.1.0.12");
  EXPECT_EQ(p.members[1].monitor_port, 8443);
  // `check` alone: a TCP monitor with HAProxy's defaults.
  ASSERT_TRUE(p.health_monitor);
  const model::HealthMonitor& m = *p.health_monitor;
  EXPECT_EQ(m.type, MonitorType::kTcp);
  EXPECT_EQ(m.interval, 2s);
  EXPECT_EQ(m.fast_interval, 2s);
  EXPECT_EQ(m.timeout, 2s);
  EXPECT_EQ(m.healthy_threshold, 2);
  EXPECT_EQ(m.unhealthy_threshold, 3);
  EXPECT_EQ(m.where.line, 13);
}

TEST(HaproxyLoad, CheckTypes) {
  struct Case {
    const char* body;
    MonitorType type;
  };
  const Case cases[] = {
      {"  server s 10.0.0.1:6443 check\n", MonitorType::kTcp},
      {"  server s 10.0.0.1:6443 check check-ssl verify none\n", MonitorType::kTlsHello},
      {"  option ssl-hello-chk\n  server s 10.0.0.1:6443 check\n", MonitorType::kTlsHello},
      {"  option httpchk GET /readyz\n  server s 10.0.0.1:6443 check\n", MonitorType::kHttp},
      {"  option httpchk GET /readyz\n  server s 10.0.0.1:6443 check check-ssl verify none\n",
       MonitorType::kHttps},
      {"  option httpchk GET /readyz\n  server s 10.0.0.1:6443 check ssl verify none\n",
       MonitorType::kHttps},
      {"  option httpchk\n  http-check connect ssl\n  server s 10.0.0.1:6443 check verify none\n",
       MonitorType::kHttps},
      {"  option tcp-check\n  server s 10.0.0.1:6443 check\n", MonitorType::kTcp},
      {"  option tcp-check\n  tcp-check connect ssl\n  server s 10.0.0.1:6443 check verify none\n",
       MonitorType::kTlsHello},
      {"  option httpchk\n  server s 10.0.0.1:6443 check check-ssl no-check-ssl\n",
       MonitorType::kHttp},
  };
  for (const Case& c : cases) {
    const model::Config config = loaded(backend(c.body));
    EXPECT_EQ(monitor(config, "b").type, c.type) << c.body;
  }
}

TEST(HaproxyLoad, NoCheckedServerMeansNoMonitorAsInHaproxy) {
  const LoadResult r = load(backend("  option httpchk GET /readyz\n  server s 10.0.0.1:6443\n"));
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_FALSE(r.config->pools[0].health_monitor);
  EXPECT_TRUE(has_warning(r.diagnostics, 5, "has no effect: no server of backend \"b\""))
      << all(r.diagnostics);
}

TEST(HaproxyLoad, HttpchkForms) {
  struct Case {
    const char* option;
    const char* method;
    const char* path;
    const char* host;
  };
  const Case cases[] = {
      {"option httpchk", "OPTIONS", "/", ""},  // HAProxy's default request
      {"option httpchk /healthz", "OPTIONS", "/healthz", ""},
      {"option httpchk GET /readyz", "GET", "/readyz", ""},
      {"option httpchk HEAD /readyz HTTP/1.0", "HEAD", "/readyz", ""},
      {"option httpchk GET /readyz HTTP/1.1\\r\\nHost:\\ api.example.com", "GET", "/readyz",
       "api.example.com"},
  };
  for (const Case& c : cases) {
    const LoadResult r =
        load(backend("  " + std::string(c.option) + "\n  server s 10.0.0.1:6443 check\n"));
    ASSERT_TRUE(r.ok()) << c.option << all(r.diagnostics);
    EXPECT_TRUE(r.diagnostics.empty()) << c.option << all(r.diagnostics);
    const model::HealthMonitor& m = monitor(*r.config, "b");
    EXPECT_EQ(m.http_method, c.method) << c.option;
    EXPECT_EQ(m.path, c.path) << c.option;
    EXPECT_EQ(m.host, c.host) << c.option;
    EXPECT_EQ(m.expected_codes.to_string(), "200-399") << c.option;  // HAProxy: 2xx and 3xx
    EXPECT_EQ(m.where.line, 5) << c.option;
  }
}

TEST(HaproxyLoad, HttpCheckRules) {
  const LoadResult r = load(backend(R"(  option httpchk
  http-check connect ssl port 6444 sni api.internal
  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host api.example.com hdr X-A b
  http-check expect status 200-299
  server s 10.0.0.1:6443 check verify none
)"));
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const model::HealthMonitor& m = monitor(*r.config, "b");
  EXPECT_EQ(m.type, MonitorType::kHttps);
  EXPECT_EQ(m.http_method, "GET");
  EXPECT_EQ(m.path, "/readyz");
  EXPECT_EQ(m.host, "api.example.com");
  EXPECT_EQ(m.expected_codes.to_string(), "200-299");
  EXPECT_EQ(m.tls.server_name, "api.internal");
  EXPECT_FALSE(m.tls.verify);
  EXPECT_EQ(r.config->pools[0].members[0].monitor_port, 6444);
  EXPECT_TRUE(has_warning(r.diagnostics, 7, "header `X-A`")) << all(r.diagnostics);
}

TEST(HaproxyLoad, ExpectRstatusListingCodesAsOctaviaWritesIt) {
  const model::Config c =
      loaded(backend("  option httpchk GET /healthz\n  http-check expect rstatus 200|202\n"
                     "  server s 10.0.0.1:6443 check\n"));
  EXPECT_EQ(monitor(c, "b").expected_codes.to_string(), "200,202");
  const LoadResult r =
      load(backend("  option httpchk GET /healthz\n  http-check expect rstatus ^2[0-9]{2}$\n"
                   "  http-check expect string ok\n  server s 10.0.0.1:6443 check\n"));
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(monitor(*r.config, "b").expected_codes.to_string(), "200-399");
  EXPECT_TRUE(has_warning(r.diagnostics, 6, "not regular expressions")) << all(r.diagnostics);
  EXPECT_TRUE(has_warning(r.diagnostics, 7, "status code only")) << all(r.diagnostics);
  EXPECT_TRUE(has_error(load(backend("  http-check expect status 999\n")), 5, "999"));
}

TEST(HaproxyLoad, LastCheckOptionWinsAndTheReplacedOneIsReported) {
  // kubeadm's guide writes both; HAProxy keeps ssl-hello-chk.
  const LoadResult r = load(backend(R"(  option httpchk GET /healthz
  http-check expect status 200
  option ssl-hello-chk
  server s 10.0.0.1:6443 check
)"));
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(monitor(*r.config, "b").type, MonitorType::kTlsHello);
  EXPECT_TRUE(has_warning(r.diagnostics, 5,
                          "ignored: `option httpchk GET /healthz`: replaced by `option "
                          "ssl-hello-chk` at line 7"))
      << all(r.diagnostics);
  EXPECT_TRUE(has_warning(r.diagnostics, 6, "ignored: http-check rules")) << all(r.diagnostics);
}

TEST(HaproxyLoad, TcpCheckRulesVigilCannotRun) {
  const LoadResult r = load(backend(R"(  option tcp-check
  tcp-check send PING\r\n
  tcp-check expect string +PONG
  server s 10.0.0.1:6379 check
)"));
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(monitor(*r.config, "b").type, MonitorType::kTcp);
  EXPECT_TRUE(has_warning(r.diagnostics, 6, "ignored: `tcp-check send")) << all(r.diagnostics);
  EXPECT_TRUE(has_warning(r.diagnostics, 7, "ignored: `tcp-check expect")) << all(r.diagnostics);
  const LoadResult mysql =
      load(backend("  option mysql-check user x\n  server s 10.0.0.1:3306 check\n"));
  ASSERT_TRUE(mysql.ok());
  EXPECT_EQ(monitor(*mysql.config, "b").type, MonitorType::kTcp);
  EXPECT_TRUE(has_warning(mysql.diagnostics, 5, "vigil cannot run this check"))
      << all(mysql.diagnostics);
}

TEST(HaproxyLoad, CheckTiming) {
  const LoadResult r = load(backend(R"(  timeout check 4s
  option httpchk GET /readyz
  server s 10.0.0.1:6443 check inter 10s fastinter 1s downinter 5s rise 3 fall 4
)"));
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const model::HealthMonitor& m = monitor(*r.config, "b");
  EXPECT_EQ(m.interval, 10s);
  EXPECT_EQ(m.fast_interval, 1s);
  EXPECT_EQ(m.timeout, 4s);
  EXPECT_EQ(m.healthy_threshold, 3);
  EXPECT_EQ(m.unhealthy_threshold, 4);
  EXPECT_TRUE(has_warning(r.diagnostics, 7, "ignored: `downinter 5s`")) << all(r.diagnostics);
  // downinter equal to inter is no difference.
  const LoadResult same = load(backend("  server s 10.0.0.1:6443 check inter 5s downinter 5s\n"));
  EXPECT_TRUE(same.diagnostics.empty()) << all(same.diagnostics);
}

TEST(HaproxyLoad, CheckTimeoutMirrorsHaproxy) {
  // No timeout check: inter. A connect-only check: min(timeout connect, inter).
  EXPECT_EQ(
      monitor(loaded(backend("  option ssl-hello-chk\n  server s 10.0.0.1:1 check inter 7s\n")),
              "b")
          .timeout,
      7s);
  EXPECT_EQ(monitor(loaded(backend("  timeout check 10s\n  timeout connect 3s\n"
                                   "  server s 10.0.0.1:1 check inter 5s\n")),
                    "b")
                .timeout,
            3s);
  EXPECT_EQ(
      monitor(loaded(backend("  timeout check 10s\n  server s 10.0.0.1:1 check inter 5s\n")), "b")
          .timeout,
      5s);
  EXPECT_EQ(
      monitor(loaded(backend("  timeout check 10s\n  timeout connect 3s\n"
                             "  option ssl-hello-chk\n  server s 10.0.0.1:1 check inter 5s\n")),
              "b")
          .timeout,
      10s);
}

TEST(HaproxyLoad, FastinterLongerThanInterIsLowered) {
  const LoadResult r = load(backend("  server s 10.0.0.1:1 check inter 2s fastinter 5s\n"));
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(monitor(*r.config, "b").fast_interval, 2s);
  EXPECT_TRUE(has_warning(r.diagnostics, 5, "`fastinter 5s` is longer than inter"))
      << all(r.diagnostics);
}

TEST(HaproxyLoad, ThresholdsAboveTenAreLowered) {
  const LoadResult r = load(backend("  server s 10.0.0.1:1 check rise 20 fall 11\n"));
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(monitor(*r.config, "b").healthy_threshold, 10);
  EXPECT_EQ(monitor(*r.config, "b").unhealthy_threshold, 10);
  EXPECT_TRUE(has_warning(r.diagnostics, 5, "`rise 20`: vigil counts at most 10"));
}

TEST(HaproxyLoad, DefaultServerAppliesToLaterServersAndFromDefaults) {
  const LoadResult r = load(R"(
defaults
  default-server inter 3s fall 5
listen api
  bind :6443
  server s1 10.0.0.1:6443 check
  default-server inter 7s rise 4
  server s2 10.0.0.2:6443 check weight 2
  server s3 10.0.0.3:6443 check inter 7s fall 5 rise 4 no-check
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const model::Pool& p = r.config->pools[0];
  ASSERT_EQ(p.members.size(), 3u);
  EXPECT_EQ(p.health_monitor->interval, 3s);  // s1's, the first checked server
  EXPECT_EQ(p.health_monitor->unhealthy_threshold, 5);
  EXPECT_EQ(p.health_monitor->healthy_threshold, 2);
  EXPECT_EQ(p.members[1].weight, 2);
  EXPECT_TRUE(has_warning(r.diagnostics, 7,
                          "server \"s2\"'s check settings differ from server \"s1\"'s (line 5): "
                          "inter 7s vs 3s, rise 4 vs 2"))
      << all(r.diagnostics);
  EXPECT_TRUE(has_warning(r.diagnostics, 8, "server \"s3\" has no `check`")) << all(r.diagnostics);
}

TEST(HaproxyLoad, DefaultsInheritanceNamedDefaultsAndReset) {
  const LoadResult r = load(R"(
defaults base
  mode tcp
  timeout connect 4s
  option httpchk GET /readyz
defaults
  retries 5
frontend f1 from base
  bind :1001
  default_backend b1
backend b1 from base
  server s 10.0.0.1:1 check
frontend f2
  bind :1002
  default_backend b2
backend b2
  server s 10.0.0.1:1 check
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const model::Pool& b1 = pool(*r.config, "b1");
  const model::Pool& b2 = pool(*r.config, "b2");
  EXPECT_EQ(b1.connect_timeout, 4s);
  EXPECT_EQ(b1.retries, 3);
  EXPECT_EQ(b1.health_monitor->type, MonitorType::kHttp);
  // The unnamed defaults section starts from HAProxy's defaults again.
  EXPECT_EQ(b2.connect_timeout, 1s);
  EXPECT_EQ(b2.retries, 5);
  EXPECT_EQ(b2.health_monitor->type, MonitorType::kTcp);
  EXPECT_TRUE(has_error(load("frontend f from nowhere\n  bind :1\n"), 1,
                        "defaults section \"nowhere\" is not defined"));
}

TEST(HaproxyLoad, HttpCheckRulesOfAProxyReplaceThoseOfItsDefaults) {
  const model::Config c = loaded(R"(
defaults
  option httpchk
  http-check send meth GET uri /healthz hdr Host d.example.com
  http-check expect status 204
frontend f
  bind :6443
  default_backend b
backend b
  http-check send meth HEAD uri /readyz
  server s 10.0.0.1:6443 check
)");
  const model::HealthMonitor& m = monitor(c, "b");
  EXPECT_EQ(m.http_method, "HEAD");
  EXPECT_EQ(m.path, "/readyz");
  EXPECT_EQ(m.host, "");
  EXPECT_EQ(m.expected_codes.to_string(), "200-399");
}

TEST(HaproxyLoad, ListenIsListenerAndPool) {
  const LoadResult r = load(R"(
listen api-server-6443
  bind *:6443
  bind :::6444
  bind 10.0.0.5:7443,10.0.0.6:7443 maxconn 10 transparent
  server m1 10.0.0.11:6443 check
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const model::Config& c = *r.config;
  ASSERT_EQ(c.listeners.size(), 4u);
  EXPECT_EQ(c.listeners[0].name, "api-server-6443");
  EXPECT_EQ(c.listeners[0].bind_address, "0.0.0.0");
  EXPECT_EQ(c.listeners[1].name, "api-server-6443-2");
  EXPECT_EQ(c.listeners[1].bind_address, "::");
  EXPECT_EQ(c.listeners[2].name, "api-server-6443-3");
  EXPECT_EQ(c.listeners[2].bind_address, "10.0.0.5");
  EXPECT_EQ(c.listeners[2].max_connections, 10);
  EXPECT_EQ(c.listeners[3].name, "api-server-6443-4");
  EXPECT_EQ(c.listeners[3].bind_address, "10.0.0.6");
  EXPECT_EQ(c.listeners[3].port, 7443);
  EXPECT_FALSE(c.listeners[1].freebind);
  EXPECT_TRUE(c.listeners[2].freebind);  // transparent: a keepalived standby's bind
  EXPECT_TRUE(c.listeners[3].freebind);
  for (const model::Listener& l : c.listeners) EXPECT_EQ(l.pool, "api-server-6443");
  ASSERT_EQ(c.pools.size(), 1u);
}

TEST(HaproxyLoad, FrontendSendingToAListenWithoutServers) {
  const LoadResult r = load(
      "frontend f\n  bind :1\n  default_backend a\nlisten a\n  bind :2\n  default_backend b\n"
      "backend b\n  server s 10.0.0.1:1\n");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  ASSERT_EQ(r.config->listeners.size(), 1u);
  EXPECT_EQ(r.config->listeners[0].name, "a");
  EXPECT_EQ(r.config->listeners[0].pool, "b");
  EXPECT_TRUE(has_warning(r.diagnostics, 1,
                          "frontend \"f\" sends its connections to listen \"a\", "
                          "which has no servers of its own"))
      << all(r.diagnostics);
}

TEST(HaproxyLoad, LegacyListenAddressOnTheSectionLine) {
  const model::Config c = loaded("listen api 0.0.0.0:6443\n  server m1 10.0.0.11:6443 check\n");
  ASSERT_EQ(c.listeners.size(), 1u);
  EXPECT_EQ(c.listeners[0].port, 6443);
  EXPECT_EQ(c.listeners[0].where.line, 1);
}

TEST(HaproxyLoad, ServerWithoutPortTakesTheListenersPort) {
  const model::Config c = loaded(
      "frontend f\n  bind 10.0.0.5:6443\n  bind 10.0.0.6:6443\n  default_backend b\n"
      "backend b\n  server s 10.0.0.1\n");
  EXPECT_EQ(c.pools[0].members[0].port, 6443);
  const LoadResult two = load(
      "frontend f\n  bind :6443\n  bind :7443\n  default_backend b\nbackend b\n  server s "
      "10.0.0.1\n");
  EXPECT_TRUE(has_error(two, 6, "the listeners of backend \"b\" use several (6443, 7443)"))
      << all(two.diagnostics);
  const LoadResult none = load("backend b\n  server s 10.0.0.1\n");
  EXPECT_TRUE(has_error(none, 2, "has no port, and no listener uses backend \"b\""))
      << all(none.diagnostics);
}

TEST(HaproxyLoad, UseBackend) {
  // The only backend named: used, with a warning.
  const LoadResult only = load(R"(
frontend f
  bind :443
  acl is_api req.ssl_sni -i api.example.com
  use_backend b if is_api
backend b
  server s 10.0.0.1:443 check
)");
  ASSERT_TRUE(only.ok()) << all(only.diagnostics);
  ASSERT_EQ(only.config->listeners.size(), 1u);
  EXPECT_EQ(only.config->listeners[0].pool, "b");
  EXPECT_TRUE(has_warning(only.diagnostics, 4,
                          "vigil does not route by conditions; as the only "
                          "backend"))
      << all(only.diagnostics);
  EXPECT_TRUE(has_warning(only.diagnostics, 3, "ignored: `acl"));
  // Several: ignored, and the frontend does not listen.
  const LoadResult several = load(R"(
frontend f
  bind :443
  use_backend a if { req.ssl_sni -i a.example.com }
  use_backend b if { req.ssl_sni -i b.example.com }
backend a
  server s 10.0.0.1:443 check
backend b
  server s 10.0.0.2:443 check
)");
  ASSERT_TRUE(several.ok()) << all(several.diagnostics);
  EXPECT_TRUE(several.config->listeners.empty());
  EXPECT_TRUE(has_warning(several.diagnostics, 3, "ignored: `use_backend a`"));
  EXPECT_TRUE(has_warning(several.diagnostics, 1, "frontend \"f\" has no default_backend"));
  // Beside a default_backend: ignored.
  const LoadResult beside = load(R"(
frontend f
  bind :443
  use_backend a if { src 10.0.0.0/8 }
  default_backend b
backend a
  server s 10.0.0.1:443 check
backend b
  server s 10.0.0.2:443 check
)");
  ASSERT_TRUE(beside.ok()) << all(beside.diagnostics);
  EXPECT_EQ(beside.config->listeners[0].pool, "b");
  EXPECT_TRUE(has_warning(beside.diagnostics, 3, "every connection goes to the default_backend"));
}

TEST(HaproxyLoad, StructuralErrorsNameTheirLine) {
  EXPECT_TRUE(has_error(load("frontend f\n  bind :1\n  default_backend nope\nbackend nop\n"), 3,
                        "backend \"nope\" is not defined (did you mean \"nop\"?)"));
  EXPECT_TRUE(has_error(load("frontend f\n  bind :1\n  default_backend g\nfrontend g\n  bind :2\n"),
                        3, "(\"g\" is a frontend)"));
  EXPECT_TRUE(has_error(load(backend("  server s 10.0.0.300:1 check\n")), 5, "server s:"));
  EXPECT_TRUE(has_error(load(backend("  server s\n")), 5, "needs a name and an address"));
  EXPECT_TRUE(
      has_error(load(backend("  timeout connect 5x\n")), 5, "timeout connect: invalid time"));
  EXPECT_TRUE(has_error(load(backend("  server s 10.0.0.1:1 check inter 0\n")), 5,
                        "must be greater than 0"));
  EXPECT_TRUE(has_error(load(backend("  server s 10.0.0.1:1 weight 300\n")), 5,
                        "weight must be an integer from 0 to 256"));
  EXPECT_TRUE(has_error(load(backend("  server s 10.0.0.1:1 verify maybe\n")), 5,
                        "verify must be none or required"));
  EXPECT_TRUE(has_error(load(backend("  server s 10.0.0.1:1 check inter\n")), 5,
                        "`inter` on a server line needs a value"));
  EXPECT_TRUE(has_error(load(backend("  option httpchk GET readyz\n")), 5, "must start with '/'"));
  EXPECT_TRUE(has_error(load(backend("  option httpchk FETCH /\n")), 5, "method \"FETCH\""));
  EXPECT_TRUE(has_error(load("frontend f\n  bind lb.example.com:6443\n"), 2,
                        "vigil does not resolve host names for binds"));
  EXPECT_TRUE(has_error(load("frontend f\n  mode udp\n"), 2, "unknown mode"));
  EXPECT_TRUE(has_error(load("frontend\n"), 1, "`frontend` needs a name"));
  EXPECT_TRUE(
      has_error(load("backend b\nbackend b\n"), 2, "backend \"b\" is already defined at line 1"));
  EXPECT_TRUE(has_error(load(backend("  server s 10.0.0.1:1\n  server s 10.0.0.2:1\n")), 6,
                        "server \"s\" is already defined"));
  EXPECT_TRUE(has_error(load(""), 0, "empty config"));
  EXPECT_TRUE(has_error(load("# only a comment\n"), 0, "empty config"));
}

TEST(HaproxyLoad, BindSslIsTlsTerminationAndRefused) {
  const LoadResult r = load(
      "frontend f\n  bind :6443 ssl crt /etc/x.pem\n  default_backend b\nbackend b\n"
      "  server s 10.0.0.1:1\n");
  EXPECT_TRUE(has_error(r, 2, "TLS termination is not supported")) << all(r.diagnostics);
  EXPECT_TRUE(has_warning(r.diagnostics, 2, "ignored: bind parameter `crt /etc/x.pem`"));
}

TEST(HaproxyLoad, ModeHttpIsLoadedAsTcpWithAWarning) {
  const LoadResult r = load(R"(
defaults
  mode http
frontend f
  bind :80
  default_backend b
backend b
  mode tcp
  server s 10.0.0.1:80 check
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_TRUE(has_warning(r.diagnostics, 2, "`mode http`: vigil proxies TCP; frontend \"f\""))
      << all(r.diagnostics);
  for (const Diagnostic& d : r.diagnostics)
    EXPECT_EQ(d.message.find("backend \"b\" is loaded"), std::string::npos);
}

TEST(HaproxyLoad, StatsListenIsSkipped) {
  const LoadResult r = load(R"(
listen stats
  bind :9000
  mode http
  stats enable
  stats uri /
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_TRUE(r.config->listeners.empty());
  EXPECT_TRUE(r.config->pools.empty());
  EXPECT_TRUE(has_warning(r.diagnostics, 1,
                          "ignored: listen \"stats\" only serves HAProxy's "
                          "statistics page (line 4)"));
  EXPECT_TRUE(has_warning(r.diagnostics, 4, "ignored: `stats enable`"));
  EXPECT_TRUE(has_warning(r.diagnostics, 5, "ignored: `stats uri /`"));
}

TEST(HaproxyLoad, DisabledProxiesAndServers) {
  const LoadResult r = load(R"(
frontend f
  bind :1
  disabled
  default_backend b
frontend g
  bind :2
  default_backend b
backend b
  disabled
  server s 10.0.0.1:1 check
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  ASSERT_EQ(r.config->listeners.size(), 1u);
  EXPECT_EQ(r.config->listeners[0].name, "g");
  EXPECT_FALSE(r.config->pools[0].members[0].enabled);
  EXPECT_TRUE(has_warning(r.diagnostics, 3, "frontend \"f\" is disabled"));
  EXPECT_TRUE(has_warning(r.diagnostics, 9, "backend \"b\" is disabled"));
}

TEST(HaproxyLoad, BackupsAndAllbackups) {
  const std::string servers =
      "  server a 10.0.0.1:1 check\n  server b1 10.0.0.2:1 check backup\n"
      "  server b2 10.0.0.3:1 check backup\n";
  const LoadResult without = load(backend(servers));
  ASSERT_TRUE(without.ok());
  EXPECT_TRUE(has_warning(without.diagnostics, 7, "is a second backup"))
      << all(without.diagnostics);
  const LoadResult with = load(backend("  option allbackups\n" + servers));
  ASSERT_TRUE(with.ok());
  EXPECT_TRUE(has_warning(with.diagnostics, 5,
                          "ignored: `option allbackups`: vigil always uses "
                          "every healthy backup"));
  for (const Diagnostic& d : with.diagnostics) {
    EXPECT_EQ(d.message.find("second backup"), std::string::npos) << d.to_string();
  }
}

TEST(HaproxyLoad, TlsSettingsOfTheCheck) {
  const LoadResult r = load(R"(
global
  ca-base /etc/ssl/private
  crt-base /etc/vigil
frontend f
  bind :6443
  default_backend b
backend b
  option httpchk GET /readyz
  server s 10.0.0.1:6443 check check-ssl ca-file ca.pem check-sni api.example.com crt client.pem
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const model::HealthMonitor& m = monitor(*r.config, "b");
  EXPECT_EQ(m.type, MonitorType::kHttps);
  EXPECT_TRUE(m.tls.verify);  // HAProxy's default: verify required
  EXPECT_EQ(m.tls.ca_file, "/etc/ssl/private/ca.pem");
  EXPECT_EQ(m.tls.server_name, "api.example.com");
  EXPECT_EQ(m.tls.client_cert, "/etc/vigil/client.pem");
  EXPECT_EQ(m.tls.client_key, "/etc/vigil/client.pem");

  // verify required without a CA: HAProxy refuses it; vigil verifies against the system's CAs.
  const LoadResult no_ca = load(backend("  server s 10.0.0.1:6443 check check-ssl\n"));
  ASSERT_TRUE(no_ca.ok());
  EXPECT_TRUE(monitor(*no_ca.config, "b").tls.verify);
  EXPECT_TRUE(has_warning(no_ca.diagnostics, 5, "no ca-file, which HAProxy refuses"));
  // ssl-server-verify none changes the default.
  const model::Config global_none = loaded("global\n  ssl-server-verify none\n" +
                                           backend("  server s 10.0.0.1:6443 check check-ssl\n"));
  EXPECT_FALSE(monitor(global_none, "b").tls.verify);
  // @system-ca names the system's CAs.
  const model::Config system = loaded(
      backend("  server s 10.0.0.1:6443 check check-ssl verify required ca-file @system-ca\n"));
  EXPECT_TRUE(monitor(system, "b").tls.verify);
  EXPECT_EQ(monitor(system, "b").tls.ca_file, "");
  // ssl-hello-chk is a handshake only: never verified.
  const model::Config hello = loaded(backend(
      "  option ssl-hello-chk\n  server s 10.0.0.1:6443 check verify required ca-file /x\n"));
  EXPECT_FALSE(monitor(hello, "b").tls.verify);
  // Server `ssl` (re-encryption) is not supported, but makes the checks TLS as in HAProxy.
  const LoadResult ssl = load(backend("  server s 10.0.0.1:6443 ssl verify none check\n"));
  ASSERT_TRUE(ssl.ok());
  EXPECT_EQ(monitor(*ssl.config, "b").type, MonitorType::kTlsHello);
  EXPECT_TRUE(has_warning(ssl.diagnostics, 5, "ignored: server parameter `ssl`: re-encrypting"));
}

TEST(HaproxyLoad, TimeoutsMakeTheIdleTimeout) {
  const LoadResult r = load(R"(
defaults
  timeout client 30s
  timeout server 50s
frontend f
  bind :1
  bind :2
  default_backend b
frontend g
  bind :3
  default_backend c
backend b
  server s 10.0.0.1:1
backend c
  timeout tunnel 2h
  server s 10.0.0.1:1
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const auto& ls = r.config->listeners;
  ASSERT_EQ(ls.size(), 3u);
  EXPECT_EQ(ls[0].idle_timeout, 50s);
  EXPECT_EQ(ls[1].idle_timeout, 50s);
  EXPECT_EQ(ls[2].idle_timeout, 2h);
  EXPECT_TRUE(has_warning(r.diagnostics, 3,
                          "the idle_timeout of listeners \"f\", \"f-2\" is 50s (the longest of "
                          "timeout client, server and tunnel)"))
      << all(r.diagnostics);
  for (const Diagnostic& d : r.diagnostics) {
    EXPECT_EQ(d.message.find("\"g\""), std::string::npos) << d.to_string();
  }
}

TEST(HaproxyLoad, MaxconnAndRetries) {
  const LoadResult r = load(R"(
global
  maxconn 100
defaults
  maxconn 500
  retries 50
frontend f
  maxconn 20000000
  bind :1
  default_backend b
backend b
  server s 10.0.0.1:1
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.config->listeners[0].max_connections, 10'000'000);
  EXPECT_EQ(r.config->pools[0].retries, 10);
  EXPECT_TRUE(has_warning(r.diagnostics, 2, "ignored: `maxconn 100`"));
  EXPECT_TRUE(has_warning(r.diagnostics, 5, "`retries 50`: vigil retries a connect at most 10"));
  EXPECT_TRUE(has_warning(r.diagnostics, 7, "`maxconn 20000000`"));
}

TEST(HaproxyLoad, SlowstartIsThePoolsLongestWithAWarningWhereServersDiffer) {
  const LoadResult r = load(R"(
backend agree
  default-server slowstart 20s
  server a 10.0.0.1:1
  server b 10.0.0.2:1
backend differ
  server a 10.0.0.1:1 slowstart 5s
  server b 10.0.0.2:1 slowstart 1m
  server c 10.0.0.3:1
backend none
  server a 10.0.0.1:1
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(pool(*r.config, "agree").slow_start, 20s);
  EXPECT_EQ(pool(*r.config, "differ").slow_start, 1min);
  EXPECT_EQ(pool(*r.config, "none").slow_start, 0s);
  EXPECT_TRUE(has_warning(r.diagnostics, 6,
                          "server \"a\" has `slowstart 5s`, server \"b\" (line 7) has "
                          "`slowstart 1m`: vigil has one slow_start per pool and uses the "
                          "longest, 1m"))
      << all(r.diagnostics);
  EXPECT_TRUE(has_warning(r.diagnostics, 8, "server \"c\" has no slowstart, server \"b\""))
      << all(r.diagnostics);
  for (const Diagnostic& d : r.diagnostics) {
    if (d.message.find("slowstart") == std::string::npos) continue;
    EXPECT_TRUE(d.where.line == 6 || d.where.line == 8) << d.to_string();
  }
  EXPECT_TRUE(has_error(load(backend("  server s 10.0.0.1:1 slowstart 25h\n")), 5,
                        "`slowstart 25h`: must be at most 24h"));
}

TEST(HaproxyLoad, BalanceAlgorithms) {
  struct Case {
    const char* balance;
    Algorithm algorithm;
    bool warns;
  };
  const Case cases[] = {
      {"roundrobin", Algorithm::kRoundRobin, false},
      {"leastconn", Algorithm::kLeastConnections, false},
      {"source", Algorithm::kSourceIp, false},
      {"static-rr", Algorithm::kRoundRobin, true},
      {"uri", Algorithm::kRoundRobin, true},
      {"hdr(host)", Algorithm::kRoundRobin, true},
      {"random(2)", Algorithm::kRoundRobin, true},
  };
  for (const Case& c : cases) {
    const LoadResult r =
        load(backend("  balance " + std::string(c.balance) + "\n  server s 10.0.0.1:1\n"));
    ASSERT_TRUE(r.ok()) << c.balance << all(r.diagnostics);
    EXPECT_EQ(r.config->pools[0].algorithm, c.algorithm) << c.balance;
    EXPECT_EQ(has_warning(r.diagnostics, 5, "balance"), c.warns) << c.balance << all(r.diagnostics);
  }
}

TEST(HaproxyLoad, EveryIgnoredDirectiveIsReportedWithItsLine) {
  const LoadResult r = load(R"(
global
  log 127.0.0.1 local2
  chroot /var/lib/haproxy
  tune.ssl.default-dh-param 2048
  ssl-default-bind-ciphers PROFILE=SYSTEM
defaults
  option httplog
  option dontlognull
  option forwardfor
  timeout http-request 10s
  errorfile 503 /etc/haproxy/errors/503.http
  option redispatch
  option log-health-checks
frontend f
  bind :80
  http-request set-header X-Forwarded-Proto http
  capture request header Host len 64
  compression algo gzip
  tcp-request connection reject if { src 10.9.0.0/16 }
  default_backend b
backend b
  cookie SERVERID insert indirect
  stick-table type ip size 1m expire 30m
  server s 10.0.0.1:80 check slowstart 30s maxconn 100 send-proxy cookie s1
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const std::pair<int, const char*> ignored[] = {
      {2, "ignored: `log 127.0.0.1 local2`"},
      {3, "ignored: `chroot /var/lib/haproxy`"},
      {4, "ignored: `tune.ssl.default-dh-param 2048`"},
      {5, "ignored: `ssl-default-bind-ciphers PROFILE=SYSTEM`"},
      {7, "ignored: `option httplog`: applies to HTTP mode only"},
      {8, "ignored: `option dontlognull`"},
      {9, "ignored: `option forwardfor`"},
      {10, "ignored: `timeout http-request 10s`"},
      {11, "ignored: `errorfile 503"},
      {16, "ignored: `http-request set-header"},
      {17, "ignored: `capture request header Host len 64`"},
      {18, "ignored: `compression algo gzip`"},
      {19, "not converted: `tcp-request connection reject"},
      {22, "ignored: `cookie SERVERID insert indirect`"},
      {23, "ignored: `stick-table type ip size 1m expire 30m`"},
      {24, "ignored: server parameter `maxconn 100`: vigil has no per-server connection limits"},
      {24, "ignored: server parameter `cookie s1`"},
  };
  for (const auto& [line, text] : ignored) {
    EXPECT_TRUE(has_warning(r.diagnostics, line, text))
        << line << " " << text << all(r.diagnostics);
  }
  // What vigil already does is accepted silently.
  for (const Diagnostic& d : r.diagnostics) {
    EXPECT_NE(d.where.line, 12) << d.to_string();
    EXPECT_NE(d.where.line, 13) << d.to_string();
  }
}

TEST(HaproxyLoad, UnknownDirectivesAndSections) {
  const LoadResult r = load(R"(
stray line
global
  daemon
  not-a-keyword 1
defaults
  option httpchck GET /
  timeout conect 5s
  balanse roundrobin
  bind :1
peers mypeers
  peer a 10.0.0.1:1024
  peer b 10.0.0.2:1024
resolvers dns
  nameserver ns1 10.0.0.53:53
backend b
  no option redispatch
  no log
  server s 10.0.0.1:1 bogus check
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_TRUE(has_warning(r.diagnostics, 1, "ignored: `stray` is outside any section"));
  EXPECT_TRUE(has_warning(r.diagnostics, 4,
                          "ignored: unknown directive `not-a-keyword` in a "
                          "global section"));
  EXPECT_TRUE(has_warning(r.diagnostics, 6,
                          "unknown directive `option httpchck` in a defaults "
                          "section (did you mean \"httpchk\"?)"))
      << all(r.diagnostics);
  EXPECT_TRUE(has_warning(r.diagnostics, 7, "(did you mean \"connect\"?)"));
  EXPECT_TRUE(has_warning(r.diagnostics, 8, "(did you mean \"balance\"?)"));
  EXPECT_TRUE(
      has_warning(r.diagnostics, 9, "ignored: `bind` does not apply to a defaults section"));
  EXPECT_TRUE(has_warning(r.diagnostics, 10,
                          "ignored: the `peers mypeers` section and its 2 "
                          "lines"));
  EXPECT_TRUE(
      has_warning(r.diagnostics, 13, "ignored: the `resolvers dns` section and its 1 line"));
  EXPECT_TRUE(has_warning(r.diagnostics, 16,
                          "ignored: `no option redispatch`: vigil always does "
                          "this"));
  EXPECT_TRUE(has_warning(r.diagnostics, 17, "ignored: `no log`"));
  EXPECT_TRUE(has_warning(r.diagnostics, 18, "ignored: unknown server parameter `bogus`"));
  EXPECT_TRUE(r.config->pools[0].health_monitor);  // `check` after the unknown word still counts
}

TEST(HaproxyLoad, EnvironmentVariablesAndConditionalBlocksAreRefused) {
  EXPECT_TRUE(has_error(load("frontend f\n  bind \"${ADDR}:6443\"\n"), 2,
                        "vigil does not expand: write the value"));
  // In an ignored directive, they do not matter.
  EXPECT_TRUE(load("global\n  log \"${LOG_HOST}\" local0\n").ok());
  EXPECT_TRUE(has_error(load("global\n.if defined(X)\n  daemon\n.endif\n"), 2,
                        "conditional blocks (.if) are not supported"));
}

TEST(HaproxyLoad, NamesThatAreNotVigilNamesAreMapped) {
  const LoadResult r = load(R"(
frontend 5b2a7c1e-0d6f-4c1b-9a57-2f6e1d8c4b3a
  bind 10.0.0.5:6443
  default_backend 9c1d:5b2a
backend 9c1d:5b2a
  server s:1 10.0.0.1:6443
backend 9c1d_5b2a
  server s 10.0.0.2:6443
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.config->listeners[0].pool, "9c1d_5b2a");
  ASSERT_EQ(r.config->pools.size(), 2u);
  EXPECT_EQ(r.config->pools[0].name, "9c1d_5b2a");
  EXPECT_EQ(r.config->pools[0].members[0].name, "s_1");
  EXPECT_EQ(r.config->pools[1].name, "9c1d_5b2a-2");
  EXPECT_TRUE(has_warning(r.diagnostics, 4, "backend \"9c1d:5b2a\" is called \"9c1d_5b2a\""));
  EXPECT_TRUE(has_warning(r.diagnostics, 5, "server \"s:1\" is called \"s_1\""));
  EXPECT_TRUE(has_warning(r.diagnostics, 6, "backend \"9c1d_5b2a\" is called \"9c1d_5b2a-2\""));
}

TEST(HaproxyLoad, BindClashesAreCaughtByValidation) {
  const LoadResult r = load(
      "frontend a\n  bind :6443\n  default_backend b\nfrontend c\n  bind 10.0.0.1:6443\n"
      "  default_backend b\nbackend b\n  server s 10.0.0.1:1\n");
  EXPECT_TRUE(has_error(r, 5, "clashes with listener \"a\"")) << all(r.diagnostics);
}

TEST(HaproxyLoad, LoadFileTellsHaproxyCfgByItsContent) {
  const std::string path = ::testing::TempDir() + "/haproxy_load_file.cfg";
  {
    std::ofstream out(path);
    out << "# OpenShift UPI\n\nglobal\n  log 127.0.0.1 local2\ndefaults\n  mode tcp\n"
           "frontend api\n  bind *:6443\n  default_backend masters\n"
           "backend masters\n  server m1 10.0.0.11:6443 check\n";
  }
  const LoadResult r = load_file(path);
  std::remove(path.c_str());
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.config->name, "haproxy_load_file");
  EXPECT_EQ(r.config->source_file, path);
  EXPECT_EQ(r.config->listeners.size(), 1u);
  ASSERT_EQ(r.diagnostics.size(), 1u) << all(r.diagnostics);
  EXPECT_EQ(r.diagnostics[0].where.line, 4);
}

}  // namespace
}  // namespace vigil::config
