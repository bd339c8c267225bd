// The PROXY protocol keys: what they load into, and each bad value refused at its line.
#include <gtest/gtest.h>

#include "config/loader.h"
#include "config/test_util.h"

namespace vigil::config {
namespace {

using namespace std::chrono_literals;
using model::ProxyProtocol;
using testing::all;
using testing::has_error;
using testing::load;

TEST(ProxyKeys, LoadWithEveryValue) {
  const LoadResult r = load(R"(
listeners:
  - name: ingress
    bind: ":443"
    pool: routers
    accept_proxy: true
    trusted_sources: [10.0.0.0/24, "fd00::5", 192.0.2.1]
    proxy_header_timeout: 500ms
pools:
  - name: routers
    proxy_protocol: v2
    health_monitor: {type: HTTP, send_proxy: true}
    members:
      - {name: r1, address: 10.0.0.1, port: 443}
      - {name: r2, address: 10.0.0.2, port: 443, proxy_protocol: v1}
      - {name: r3, address: 10.0.0.3, port: 443, proxy_protocol: off}
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const model::Listener& l = r.config->listeners.at(0);
  EXPECT_TRUE(l.accept_proxy);
  EXPECT_EQ(l.trusted_sources, (std::vector<std::string>{"10.0.0.0/24", "fd00::5", "192.0.2.1"}));
  EXPECT_EQ(l.proxy_header_timeout, 500ms);
  const model::Pool& p = r.config->pools.at(0);
  EXPECT_EQ(p.proxy_protocol, ProxyProtocol::kV2);
  EXPECT_TRUE(p.health_monitor->send_proxy);
  EXPECT_EQ(p.members.at(0).proxy_protocol, std::nullopt);
  EXPECT_EQ(p.members.at(1).proxy_protocol, ProxyProtocol::kV1);
  EXPECT_EQ(p.members.at(2).proxy_protocol, ProxyProtocol::kOff);
}

TEST(ProxyKeys, DefaultsAreOff) {
  const LoadResult r = load(R"(
listeners: [{name: api, bind: ":6443", pool: masters}]
pools:
  - name: masters
    health_monitor: {type: TCP}
    members: [{name: a, address: 10.0.0.1, port: 6443}]
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const model::Listener& l = r.config->listeners.at(0);
  EXPECT_FALSE(l.accept_proxy);
  EXPECT_TRUE(l.trusted_sources.empty());
  EXPECT_EQ(l.proxy_header_timeout, 3s);
  EXPECT_EQ(r.config->pools.at(0).proxy_protocol, ProxyProtocol::kOff);
  EXPECT_FALSE(r.config->pools.at(0).health_monitor->send_proxy);
}

TEST(ProxyKeys, BadValuesNameTheirLine) {
  struct Case {
    const char* description;
    std::string yaml;
    int line;
    const char* message;
  };
  const std::string pool =
      "pools:\n  - name: p\n    members: [{name: a, address: 10.0.0.1, port: 1}]\n";
  const Case cases[] = {
      {.description = "unknown version",
       .yaml = "listeners: [{name: l, bind: \":1\", pool: p}]\npools:\n  - name: p\n"
               "    proxy_protocol: v3\n",
       .line = 4,
       .message = "pool.proxy_protocol: unknown PROXY protocol version \"v3\"; use off, v1 or v2"},
      {.description = "member version",
       .yaml = "listeners: [{name: l, bind: \":1\", pool: p}]\npools:\n  - name: p\n    members:\n"
               "      - {name: a, address: 10.0.0.1, port: 1, proxy_protocol: V2}\n",
       .line = 5,
       .message = "member.proxy_protocol: unknown PROXY protocol version \"V2\""},
      {.description = "accept_proxy without trusted_sources",
       .yaml = "listeners:\n  - {name: l, bind: \":1\", pool: p, accept_proxy: true}\n" + pool,
       .line = 2,
       .message = "accept_proxy needs trusted_sources"},
      {.description = "not a network",
       .yaml = "listeners:\n  - name: l\n    bind: \":1\"\n    pool: p\n    accept_proxy: true\n"
               "    trusted_sources:\n      - 10.0.0.0/8\n      - lb.example\n" +
               pool,
       .line = 8,
       .message = "listener.trusted_sources: \"lb.example\" is not a network"},
      {.description = "prefix too long",
       .yaml = "listeners:\n  - {name: l, bind: \":1\", pool: p, accept_proxy: true,\n"
               "     trusted_sources: [10.0.0.0/40]}\n" +
               pool,
       .line = 3,
       .message = "the prefix length must be 0..32"},
      {.description = "not a list",
       .yaml = "listeners:\n  - {name: l, bind: \":1\", pool: p, accept_proxy: true,\n"
               "     trusted_sources: 10.0.0.0/8}\n" +
               pool,
       .line = 3,
       .message = "listener.trusted_sources: expected a list of networks"},
      {.description = "empty list",
       .yaml = "listeners:\n  - {name: l, bind: \":1\", pool: p, accept_proxy: true,\n"
               "     trusted_sources: []}\n" +
               pool,
       .line = 3,
       .message = "listener.trusted_sources: empty"},
      {.description = "zero timeout",
       .yaml = "listeners:\n  - {name: l, bind: \":1\", pool: p, accept_proxy: true,\n"
               "     trusted_sources: [\"::1\"], proxy_header_timeout: 0s}\n" +
               pool,
       .line = 3,
       .message = "listener.proxy_header_timeout"},
      {.description = "send_proxy not a bool",
       .yaml = "listeners: [{name: l, bind: \":1\", pool: p}]\npools:\n  - name: p\n"
               "    health_monitor: {type: TCP, send_proxy: v2}\n",
       .line = 4,
       .message = "health_monitor.send_proxy"},
  };
  for (const Case& c : cases) {
    const LoadResult r = load(c.yaml);
    EXPECT_FALSE(r.ok()) << c.description;
    EXPECT_TRUE(has_error(r, c.line, c.message))
        << c.description << ": want line " << c.line << " \"" << c.message << "\", got\n"
        << all(r.diagnostics);
  }
}

TEST(ProxyKeys, ABadSourceIsOneErrorAtItsLine) {
  const LoadResult r = load(
      "listeners:\n  - {name: l, bind: \":1\", pool: p, accept_proxy: true,\n"
      "     trusted_sources: [10.0.0.0/33]}\n"
      "pools:\n  - name: p\n    health_monitor: {type: TCP}\n"
      "    members: [{name: a, address: 10.0.0.1, port: 1}]\n");
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(has_error(r, 3, "the prefix length must be 0..32")) << all(r.diagnostics);
  EXPECT_EQ(all(r.diagnostics).find("needs trusted_sources"), std::string::npos)
      << all(r.diagnostics);
}

TEST(ProxyKeys, TrustedSourcesWithoutAcceptProxyWarns) {
  const LoadResult r = load(
      "listeners:\n  - {name: l, bind: \":1\", pool: p, trusted_sources: [10.0.0.0/8]}\n"
      "pools:\n  - name: p\n    health_monitor: {type: TCP}\n"
      "    members: [{name: a, address: 10.0.0.1, port: 1}]\n");
  EXPECT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_NE(all(r.diagnostics).find("trusted_sources has no effect without accept_proxy"),
            std::string::npos)
      << all(r.diagnostics);
}

}  // namespace
}  // namespace vigil::config
