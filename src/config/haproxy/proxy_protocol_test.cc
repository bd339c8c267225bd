// send-proxy, send-proxy-v2 and check-send-proxy become the members' proxy_protocol and the
// monitor's send_proxy, with HAProxy's rule for checks.
#include <gtest/gtest.h>

#include "config/haproxy/convert.h"
#include "config/haproxy/loader.h"
#include "config/loader.h"
#include "config/test_util.h"

namespace vigil::config::haproxy {
namespace {

using model::ProxyProtocol;
using testing::all;
using testing::has_warning;

LoadResult load(std::string_view text) { return load_haproxy_cfg(text, "haproxy.cfg"); }

TEST(HaproxyProxyProtocol, ServerParametersMapToMembersAndMonitor) {
  const LoadResult r = load(R"(frontend f
  bind :443
  default_backend routers
backend routers
  mode tcp
  default-server check send-proxy-v2
  server r1 10.0.0.1:443
  server r2 10.0.0.2:443 send-proxy
  server r3 10.0.0.3:443 no-send-proxy-v2
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const model::Pool& p = r.config->pools.at(0);
  EXPECT_EQ(p.members.at(0).proxy_protocol, ProxyProtocol::kV2);
  EXPECT_EQ(p.members.at(1).proxy_protocol, ProxyProtocol::kV1);
  EXPECT_EQ(p.members.at(2).proxy_protocol, ProxyProtocol::kOff);
  // r1 and r2 send it on their checks (no port, no addr); r3 does not: all do, and r3 is told.
  ASSERT_TRUE(p.health_monitor);
  EXPECT_TRUE(p.health_monitor->send_proxy);
  EXPECT_TRUE(has_warning(r.diagnostics, 9, "server \"r3\"'s checks send no PROXY header"))
      << all(r.diagnostics);
}

TEST(HaproxyProxyProtocol, ChecksOnAnotherPortSendNoneUnlessAsked) {
  const LoadResult plain = load(R"(listen ingress
  bind :80
  server r1 10.0.0.1:80 check port 1936 send-proxy
)");
  ASSERT_TRUE(plain.ok()) << all(plain.diagnostics);
  EXPECT_FALSE(plain.config->pools.at(0).health_monitor->send_proxy);
  EXPECT_EQ(plain.config->pools.at(0).members.at(0).proxy_protocol, ProxyProtocol::kV1);

  const LoadResult asked = load(R"(listen ingress
  bind :80
  server r1 10.0.0.1:80 check check-send-proxy
)");
  ASSERT_TRUE(asked.ok()) << all(asked.diagnostics);
  EXPECT_TRUE(asked.config->pools.at(0).health_monitor->send_proxy);
  EXPECT_EQ(asked.config->pools.at(0).members.at(0).proxy_protocol, std::nullopt);
}

TEST(HaproxyProxyProtocol, SslVariantsWarnAboutTheirTlvs) {
  const LoadResult r = load(R"(listen ingress
  bind :443
  server r1 10.0.0.1:443 send-proxy-v2-ssl-cn
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.config->pools.at(0).members.at(0).proxy_protocol, ProxyProtocol::kV2);
  EXPECT_TRUE(has_warning(r.diagnostics, 3, "without the SSL TLVs")) << all(r.diagnostics);
}

TEST(HaproxyProxyProtocol, ConvertWritesWhatWasMapped) {
  const LoadResult r = load(R"(listen ingress
  bind :443
  server r1 10.0.0.1:443 check send-proxy-v2
  server r2 10.0.0.2:443 check no-send-proxy
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const std::string yaml = to_yaml(*r.process, *r.config);
  const LoadResult back = load_yaml(yaml, "converted.yaml");
  ASSERT_TRUE(back.ok()) << yaml << all(back.diagnostics);
  const model::Pool& p = back.config->pools.at(0);
  EXPECT_EQ(p.members.at(0).proxy_protocol, ProxyProtocol::kV2) << yaml;
  EXPECT_EQ(p.members.at(1).proxy_protocol, ProxyProtocol::kOff) << yaml;
  EXPECT_TRUE(p.health_monitor->send_proxy) << yaml;
}

}  // namespace
}  // namespace vigil::config::haproxy
