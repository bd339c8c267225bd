// `option tcplog` becomes the listeners' log_connections: in HAProxy the frontend decides what is
// logged, so a frontend's, a listen's or their defaults' option counts and a backend's does not.
#include <gtest/gtest.h>

#include "config/haproxy/convert.h"
#include "config/haproxy/loader.h"
#include "config/loader.h"
#include "config/test_util.h"

namespace vigil::config::haproxy {
namespace {

using testing::all;

LoadResult load(std::string_view text) { return load_haproxy_cfg(text, "haproxy.cfg"); }

const model::Listener& listener(const LoadResult& r, std::string_view name) {
  for (const model::Listener& l : r.config->listeners) {
    if (l.name == name) return l;
  }
  ADD_FAILURE() << "no listener " << name;
  return r.config->listeners.at(0);
}

constexpr std::string_view kConfig = R"(defaults
  mode tcp
  option tcplog
  timeout client 1h
  timeout server 1h
  timeout connect 1s
frontend from-defaults
  bind :80
  default_backend routers
listen own
  bind :443
  server r1 10.0.0.1:443
defaults quiet
  mode tcp
  timeout client 1h
  timeout server 1h
  timeout connect 1s
frontend silent
  bind :8080
  default_backend logged-backend
frontend loud
  bind :8443
  option tcplog
  default_backend logged-backend
backend routers
  server r1 10.0.0.1:80
backend logged-backend
  option tcplog
  server r1 10.0.0.1:8080
)";

TEST(HaproxyTcplog, FrontendsAndTheirDefaultsTurnOnTheConnectionLog) {
  const LoadResult r = load(kConfig);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_TRUE(listener(r, "from-defaults").log_connections);
  EXPECT_TRUE(listener(r, "own").log_connections);
  EXPECT_TRUE(listener(r, "loud").log_connections);
  // A backend's option tcplog does not make its frontend log, as in HAProxy.
  EXPECT_FALSE(listener(r, "silent").log_connections);
  for (const Diagnostic& d : r.diagnostics) {
    EXPECT_EQ(d.message.find("tcplog"), std::string::npos) << d.to_string();
  }
}

TEST(HaproxyTcplog, ConvertWritesLogConnections) {
  const LoadResult r = load(kConfig);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const std::string yaml = to_yaml(*r.process, *r.config);
  const LoadResult back = load_yaml(yaml, "converted.yaml");
  ASSERT_TRUE(back.ok()) << all(back.diagnostics) << yaml;
  EXPECT_TRUE(listener(back, "from-defaults").log_connections) << yaml;
  EXPECT_FALSE(listener(back, "silent").log_connections) << yaml;
}

}  // namespace
}  // namespace vigil::config::haproxy
