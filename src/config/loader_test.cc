#include "config/loader.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "config/test_util.h"

namespace vigil::config {
namespace {

using namespace std::chrono_literals;
using model::Algorithm;
using model::MonitorType;
using testing::all;
using testing::has_error;
using testing::load;

TEST(LoadYaml, DesignExampleLoadsWithEveryValue) {
  const LoadResult r = load(testing::kDesignExample);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  ASSERT_TRUE(r.config);
  EXPECT_TRUE(r.diagnostics.empty()) << all(r.diagnostics);
  const model::Config& c = *r.config;
  EXPECT_EQ(c.source_file, "vigil.yaml");
  EXPECT_EQ(c.name, "vigil");
  ASSERT_TRUE(r.process);
  EXPECT_EQ(r.process->admin.listen, "127.0.0.1:8404");
  EXPECT_EQ(r.process->admin.token_file, "/etc/vigil/token");
  EXPECT_EQ(r.process->admin.state_file, "/var/lib/vigil/state.json");
  EXPECT_EQ(r.process->workers, 0);

  ASSERT_EQ(c.listeners.size(), 1u);
  const model::Listener& l = c.listeners[0];
  EXPECT_EQ(l.name, "api");
  EXPECT_EQ(l.bind_address, "");
  EXPECT_EQ(l.port, 6443);
  EXPECT_EQ(l.pool, "masters");
  EXPECT_EQ(l.max_connections, 50000);
  EXPECT_EQ(l.idle_timeout, 1h);
  EXPECT_EQ(l.where.line, 6);

  ASSERT_EQ(c.pools.size(), 1u);
  const model::Pool& p = c.pools[0];
  EXPECT_EQ(p.name, "masters");
  EXPECT_EQ(p.where.line, 12);
  EXPECT_EQ(p.algorithm, Algorithm::kRoundRobin);
  EXPECT_EQ(p.connect_timeout, 1s);
  EXPECT_EQ(p.retries, 3);
  EXPECT_TRUE(p.fail_open);
  ASSERT_TRUE(p.health_monitor);
  const model::HealthMonitor& m = *p.health_monitor;
  EXPECT_EQ(m.where.line, 15);
  EXPECT_EQ(m.type, MonitorType::kHttps);
  EXPECT_EQ(m.path, "/readyz");
  EXPECT_EQ(m.http_method, "GET");
  EXPECT_EQ(m.expected_codes.to_string(), "200");
  EXPECT_EQ(m.interval, 5s);
  EXPECT_EQ(m.fast_interval, 1s);
  EXPECT_EQ(m.timeout, 2s);
  EXPECT_EQ(m.healthy_threshold, 2);
  EXPECT_EQ(m.unhealthy_threshold, 3);
  EXPECT_FALSE(m.tls.verify);
  EXPECT_EQ(m.tls.client_cert, "/etc/vigil/client.crt");
  EXPECT_EQ(m.tls.client_key, "/etc/vigil/client.key");
  EXPECT_EQ(m.bearer_token_file, "/etc/vigil/bearer");

  ASSERT_EQ(p.members.size(), 3u);
  EXPECT_EQ(p.members[0].name, "master-01");
  EXPECT_EQ(p.members[0].address, "master-01.example.local");
  EXPECT_EQ(p.members[0].port, 6443);
  EXPECT_EQ(p.members[0].weight, 1);
  EXPECT_EQ(p.members[0].where.line, 29);
  EXPECT_EQ(p.members[1].address, "192.0.2.12");
  EXPECT_EQ(p.members[2].name, "bootstrap");
  EXPECT_TRUE(p.members[2].backup);
  EXPECT_FALSE(p.members[2].enabled);
  EXPECT_EQ(p.members[2].where.line, 31);
}

TEST(LoadYaml, EveryKeySetToANonDefault) {
  const LoadResult r = load(R"(
name: edge-lb
workers: 4
admin: {listen: "[::1]:9000", socket: /run/v.sock, token_file: /t, state_file: /s}
listeners:
  - {name: l1, bind: "10.0.0.1:443", pool: p1, max_connections: 10, idle_timeout: 90s,
     member_idle_timeout: 50s, freebind: true}
pools:
  - name: p1
    algorithm: least_connections
    connect_timeout: 250ms
    retries: 0
    fail_open: false
    first_byte_timeout: 250ms
    replay: always
    health_monitor:
      type: https
      path: /healthz
      http_method: head
      host: api.example.com
      expected_codes: 200-204
      interval: 10s
      fast_interval: 2s
      timeout: 15s
      healthy_threshold: 1
      unhealthy_threshold: 10
      tls: {verify: true, ca_file: /ca.pem, server_name: api.example.com}
    members:
      - name: m1
        address: "::1"
        port: 1
        weight: 256
        backup: yes
        enabled: true
        monitor_address: 10.0.0.9
        monitor_port: 65535
      - {name: m2, address: "[fd00::2]", port: 2, weight: 0}
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const model::Config& c = *r.config;
  EXPECT_EQ(c.name, "edge-lb");
  EXPECT_EQ(r.process->workers, 4);
  EXPECT_EQ(r.process->admin.listen, "[::1]:9000");
  EXPECT_EQ(r.process->admin.socket, "/run/v.sock");
  EXPECT_EQ(r.process->admin.token_file, "/t");
  EXPECT_EQ(r.process->admin.state_file, "/s");
  const model::Listener& l = c.listeners.at(0);
  EXPECT_EQ(l.bind_address, "10.0.0.1");
  EXPECT_EQ(l.port, 443);
  EXPECT_EQ(l.max_connections, 10);
  EXPECT_EQ(l.idle_timeout, 90s);
  EXPECT_EQ(l.member_idle_timeout, 50s);
  EXPECT_TRUE(l.freebind);
  const model::Pool& p = c.pools.at(0);
  EXPECT_EQ(p.algorithm, Algorithm::kLeastConnections);
  EXPECT_EQ(p.connect_timeout, 250ms);
  EXPECT_EQ(p.retries, 0);
  EXPECT_FALSE(p.fail_open);
  EXPECT_EQ(p.first_byte_timeout, 250ms);
  EXPECT_EQ(p.replay, model::Replay::kAlways);
  const model::HealthMonitor& m = p.health_monitor.value();
  EXPECT_EQ(m.type, MonitorType::kHttps);
  EXPECT_EQ(m.path, "/healthz");
  EXPECT_EQ(m.http_method, "HEAD");
  EXPECT_EQ(m.host, "api.example.com");
  EXPECT_EQ(m.expected_codes.to_string(), "200-204");
  EXPECT_EQ(m.interval, 10s);
  EXPECT_EQ(m.fast_interval, 2s);
  EXPECT_EQ(m.timeout, 15s);
  EXPECT_EQ(m.healthy_threshold, 1);
  EXPECT_EQ(m.unhealthy_threshold, 10);
  EXPECT_TRUE(m.tls.verify);
  EXPECT_EQ(m.tls.ca_file, "/ca.pem");
  EXPECT_EQ(m.tls.server_name, "api.example.com");
  const model::Member& m1 = p.members.at(0);
  EXPECT_EQ(m1.address, "::1");
  EXPECT_EQ(m1.port, 1);
  EXPECT_EQ(m1.weight, 256);
  EXPECT_TRUE(m1.backup);
  EXPECT_TRUE(m1.enabled);
  EXPECT_EQ(m1.monitor_address, "10.0.0.9");
  EXPECT_EQ(m1.monitor_port, 65535);
  EXPECT_EQ(p.members.at(1).address, "fd00::2");
  EXPECT_EQ(p.members.at(1).weight, 0);
}

TEST(LoadYaml, DefaultsApplied) {
  const LoadResult r = load(R"(
listeners: [{name: api, bind: ":6443", pool: masters}]
pools:
  - name: masters
    health_monitor: {type: TCP}
    members: [{name: a, address: 10.0.0.1, port: 6443}]
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const model::Config& c = *r.config;
  EXPECT_EQ(*r.process, model::Process{});
  const model::Listener& l = c.listeners.at(0);
  EXPECT_EQ(l.max_connections, 50000);
  EXPECT_EQ(l.idle_timeout, 1h);
  EXPECT_EQ(l.member_idle_timeout, 0s);  // idle_timeout alone
  EXPECT_FALSE(l.freebind);
  EXPECT_FALSE(l.log_connections);
  const model::Pool& p = c.pools.at(0);
  EXPECT_EQ(p.algorithm, Algorithm::kRoundRobin);
  EXPECT_EQ(p.connect_timeout, 1s);
  EXPECT_EQ(p.retries, 3);
  EXPECT_TRUE(p.fail_open);
  EXPECT_EQ(p.first_byte_timeout, 1s);
  EXPECT_EQ(p.replay, model::Replay::kTls);
  const model::HealthMonitor& m = p.health_monitor.value();
  EXPECT_EQ(m.type, MonitorType::kTcp);
  EXPECT_EQ(m.path, "/readyz");
  EXPECT_EQ(m.http_method, "GET");
  EXPECT_EQ(m.expected_codes.to_string(), "200");
  EXPECT_EQ(m.interval, 5s);
  EXPECT_EQ(m.fast_interval, 1s);
  EXPECT_EQ(m.timeout, 2s);
  EXPECT_EQ(m.healthy_threshold, 2);
  EXPECT_EQ(m.unhealthy_threshold, 3);
  EXPECT_FALSE(m.tls.verify);
  const model::Member& mem = p.members.at(0);
  EXPECT_EQ(mem.weight, 1);
  EXPECT_FALSE(mem.backup);
  EXPECT_TRUE(mem.enabled);
  EXPECT_EQ(mem.monitor_address, "");
  EXPECT_EQ(mem.monitor_port, 0);
}

TEST(LoadYaml, JsonLogAndAConnectionLog) {
  const LoadResult r = load(R"(
log: {format: json}
listeners:
  - {name: api, bind: ":6443", pool: masters, log_connections: true}
  - {name: other, bind: ":6444", pool: masters}
pools:
  - name: masters
    health_monitor: {type: TCP}
    members: [{name: a, address: 10.0.0.1, port: 6443}]
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.process->log.format, model::LogFormat::kJson);
  EXPECT_TRUE(r.config->listeners.at(0).log_connections);
  EXPECT_FALSE(r.config->listeners.at(1).log_connections);
}

TEST(LoadYaml, NameDefaultsToTheFileStem) {
  struct Case {
    const char* file;
    const char* name;
  };
  const Case cases[] = {
      {.file = "vigil.yaml", .name = "vigil"},
      {.file = "/etc/vigil/edge.yml", .name = "edge"},
      {.file = "cluster.prod.yaml", .name = "cluster.prod"},
      {.file = "my lb.yaml", .name = "my-lb"},
      {.file = "noext", .name = "noext"},
      {.file = "/dir/.yaml", .name = ".yaml"},
  };
  for (const Case& c : cases) {
    const LoadResult r = load("pools: []\n", c.file);
    ASSERT_TRUE(r.ok()) << c.file << all(r.diagnostics);
    EXPECT_EQ(r.config->name, c.name) << c.file;
  }
}

TEST(LoadYaml, MonitorOptOutAndAbsence) {
  const LoadResult r = load(R"(
pools:
  - {name: a, health_monitor: none}
  - {name: b, health_monitor: {type: None}}
  - {name: c}
  - {name: d, health_monitor: }
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  for (const model::Pool& p : r.config->pools) EXPECT_FALSE(p.health_monitor) << p.name;
  EXPECT_EQ(r.monitor_opt_outs, (std::vector<std::string>{"a", "b"}));
}

TEST(LoadYaml, MonitorTypesAreCaseInsensitiveAndNormalised) {
  struct Case {
    const char* type;
    MonitorType want;
  };
  const Case cases[] = {{.type = "tcp", .want = MonitorType::kTcp},
                        {.type = "tls-hello", .want = MonitorType::kTlsHello},
                        {.type = "Http", .want = MonitorType::kHttp},
                        {.type = "HTTPS", .want = MonitorType::kHttps}};
  for (const Case& c : cases) {
    const LoadResult r =
        load(std::string("pools: [{name: p, health_monitor: {type: ") + c.type + "}}]\n");
    ASSERT_TRUE(r.ok()) << c.type << all(r.diagnostics);
    EXPECT_EQ(r.config->pools[0].health_monitor->type, c.want) << c.type;
  }
}

TEST(LoadYaml, BindForms) {
  struct Case {
    const char* bind;
    const char* address;
    uint16_t port;
  };
  const Case cases[] = {
      {.bind = ":6443", .address = "", .port = 6443},
      {.bind = "*:80", .address = "", .port = 80},
      {.bind = "127.0.0.1:6443", .address = "127.0.0.1", .port = 6443},
      {.bind = "[::1]:6443", .address = "::1", .port = 6443},
      {.bind = "[::]:443", .address = "::", .port = 443},
      {.bind = "127.0.0.1:0", .address = "127.0.0.1", .port = 0},
      {.bind = ":65535", .address = "", .port = 65535},
  };
  for (const Case& c : cases) {
    const LoadResult r = load(std::string("listeners: [{name: l, bind: \"") + c.bind +
                              "\", pool: p}]\npools: [{name: p, health_monitor: none}]\n");
    ASSERT_TRUE(r.ok()) << c.bind << all(r.diagnostics);
    EXPECT_EQ(r.config->listeners[0].bind_address, c.address) << c.bind;
    EXPECT_EQ(r.config->listeners[0].port, c.port) << c.bind;
  }
}

TEST(LoadYaml, FastIntervalFollowsAShortInterval) {
  const LoadResult r = load(R"(
pools:
  - {name: a, health_monitor: {type: TCP, interval: 500ms}}
  - {name: b, health_monitor: {type: TCP, interval: 500ms, fast_interval: 100ms}}
  - {name: c, health_monitor: {type: TCP, interval: 1s, fast_interval: 1s}}
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.config->pools[0].health_monitor->fast_interval, 500ms);
  EXPECT_EQ(r.config->pools[1].health_monitor->fast_interval, 100ms);
  EXPECT_EQ(r.config->pools[2].health_monitor->fast_interval, 1s);
}

TEST(LoadYaml, FreshConnectionEveryIsAnHttpMonitorsAndBounded) {
  const LoadResult r = load(R"(
pools:
  - {name: a, health_monitor: {type: HTTPS, fresh_connection_every: 90s}}
  - {name: b, health_monitor: {type: HTTP}}
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.config->pools[0].health_monitor->fresh_connection_every, 90s);
  EXPECT_EQ(r.config->pools[1].health_monitor->fresh_connection_every, 60s);
  for (const char* bad : {"0s", "500ms", "2h"}) {
    const LoadResult b = load(
        std::string("pools: [{name: a, health_monitor: {type: HTTPS, fresh_connection_every: ") +
        bad + "}}]\n");
    EXPECT_FALSE(b.ok()) << bad;
  }
  const LoadResult tcp =
      load("pools: [{name: a, health_monitor: {type: TCP, fresh_connection_every: 90s}}]\n");
  EXPECT_FALSE(tcp.ok());  // a TCP check keeps no connection
}

TEST(LoadYaml, TimeoutLongerThanIntervalIsAllowed) {
  const LoadResult r = load(
      "pools: [{name: a, health_monitor: {type: TCP, interval: 1s, "
      "timeout: 3s}}]\n");
  EXPECT_TRUE(r.ok()) << all(r.diagnostics);
}

TEST(LoadYaml, CaFileImpliesVerify) {
  const LoadResult r = load(R"(
pools:
  - {name: a, health_monitor: {type: HTTPS, tls: {ca_file: /ca.pem}}}
  - {name: b, health_monitor: {type: TLS-HELLO, tls: {ca_file: /ca.pem, verify: false}}}
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_TRUE(r.config->pools[0].health_monitor->tls.verify);
  EXPECT_FALSE(r.config->pools[1].health_monitor->tls.verify);
  EXPECT_TRUE(testing::has_warning(r.diagnostics, 3, "ca_file is not used while verify is false"))
      << all(r.diagnostics);
}

TEST(LoadYaml, ExpectedCodesAsAnInteger) {
  const LoadResult r =
      load("pools: [{name: a, health_monitor: {type: HTTP, expected_codes: 204}}]\n");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.config->pools[0].health_monitor->expected_codes.to_string(), "204");
}

TEST(LoadYaml, UnusedPoolIsAWarningNotAnError) {
  const LoadResult r = load(R"(
listeners: [{name: api, bind: ":6443", pool: masters}]
pools:
  - {name: masters, health_monitor: none}
  - {name: etcd, health_monitor: none}
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_TRUE(testing::has_warning(r.diagnostics, 4, "pool \"etcd\" is not used by any listener"))
      << all(r.diagnostics);
  EXPECT_EQ(r.diagnostics.size(), 1u) << all(r.diagnostics);
}

class LoadFile : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    path_ = ::testing::TempDir() + "/config_test_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".cfg";
    std::ofstream(path_) << text;
    return path_;
  }
  void TearDown() override {
    if (!path_.empty()) std::remove(path_.c_str());
  }
  std::string path_;
};

TEST_F(LoadFile, ReadsYaml) {
  const std::string path = write(std::string(testing::kDesignExample.substr(1)));
  const LoadResult r = load_file(path);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.config->source_file, path);
  EXPECT_EQ(r.config->name, "config_test_ReadsYaml");
}

TEST_F(LoadFile, MissingFile) {
  const LoadResult r = load_file("/nonexistent/vigil.yaml");
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.config);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].to_string(),
            "/nonexistent/vigil.yaml: error: cannot read /nonexistent/vigil.yaml: No such file or "
            "directory");
}

TEST_F(LoadFile, Directory) {
  const LoadResult r = load_file("/");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.diagnostics.at(0).message.find("Is a directory"), std::string::npos);
}

TEST(DetectFormat, Table) {
  struct Case {
    const char* text;
    Format want;
  };
  const Case cases[] = {
      {.text = "global\n  maxconn 100\n", .want = Format::kHaproxyCfg},
      {.text = "\xEF\xBB\xBF# c\n  \n\tfrontend api\n", .want = Format::kHaproxyCfg},
      {.text = "listen stats\n", .want = Format::kHaproxyCfg},
      {.text = "backend b\r\n", .want = Format::kHaproxyCfg},
      {.text = "defaults", .want = Format::kHaproxyCfg},
      {.text = "peers p\n", .want = Format::kHaproxyCfg},
      {.text = "resolvers dns\n", .want = Format::kHaproxyCfg},
      {.text = "userlist u\n", .want = Format::kHaproxyCfg},
      {.text = "listeners:\n  - name: a\n", .want = Format::kYaml},
      {.text = "global: 1\n", .want = Format::kYaml},
      {.text = "# global\npools: []\n", .want = Format::kYaml},
      {.text = "", .want = Format::kYaml},
  };
  for (const Case& c : cases) EXPECT_EQ(detect_format(c.text), c.want) << c.text;
}

}  // namespace
}  // namespace vigil::config
