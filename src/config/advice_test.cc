#include "config/advice.h"

#include <gtest/gtest.h>

#include "config/test_util.h"

namespace vigil::config {
namespace {

using testing::all;
using testing::load;

// Admin settings that draw no advice; a case adds its own lines after them.
constexpr std::string_view kQuietAdmin = "admin: {listen: \"127.0.0.1:8404\", token_file: /t}\n";

std::vector<Diagnostic> advice_for(std::string_view yaml) {
  const LoadResult r = load(yaml);
  EXPECT_TRUE(r.ok()) << yaml << all(r.diagnostics);
  if (!r.config) return {};
  return advise(*r.process, *r.config, r.monitor_opt_outs);
}

TEST(Advise, Table) {
  struct Case {
    const char* description;
    std::string yaml;
    int line;             // 0: the file as a whole
    const char* message;  // a part of the warning; nullptr: no advice at all
  };
  const std::string admin(kQuietAdmin);
  const std::string members = "  members: [{name: m, address: 10.0.0.1, port: 6443}]\n";
  const Case cases[] = {
      {.description = "clean",
       .yaml = admin + "pools:\n- name: p\n  health_monitor: {type: HTTPS}\n" + members,
       .line = 0,
       .message = nullptr},
      {.description = "no monitor",
       .yaml = admin + "pools:\n- name: masters\n" + members,
       .line = 3,
       .message = "pool \"masters\" has no health monitor: members are NO_MONITOR and a dead "
                  "member stays in rotation; add health_monitor (e.g. type: HTTPS, path: /readyz)"},
      {.description = "monitor opted out",
       .yaml = admin + "pools:\n- name: p\n  health_monitor: none\n" + members,
       .line = 0,
       .message = nullptr},
      {.description = "OpenShift article's timing",
       .yaml = admin +
               "pools:\n- name: p\n  health_monitor:\n    type: HTTPS\n    interval: 10s\n"
               "    fast_interval: 10s\n    timeout: 10s\n" +
               members,
       .line = 4,
       .message = "pool \"p\": a dead member can stay in rotation for up to 43s (interval 10s, "
                  "timeout 10s, unhealthy_threshold 3), which breaks OpenShift's rule of removing "
                  "an API server within 30 s of /readyz failing"},
      {.description = "admin on every address",
       .yaml = "admin: {listen: \":8404\", token_file: /t}\n",
       .line = 0,
       .message = "admin.listen :8404 is not a loopback address"},
      {.description = "admin on a LAN address",
       .yaml = "admin: {listen: \"10.0.0.5:8404\", token_file: /t}\n",
       .line = 0,
       .message = "is not a loopback address"},
      {.description = "admin on IPv6 loopback",
       .yaml = "admin: {listen: \"[::1]:8404\", token_file: /t}\n",
       .line = 0,
       .message = nullptr},
      {.description = "no token file",
       .yaml = "admin: {listen: \"127.0.0.1:8404\"}\n",
       .line = 0,
       .message = "admin.token_file is not set: the API and CLI will refuse requests"},
      {.description = "only backups",
       .yaml = admin + "pools:\n- name: p\n  health_monitor: none\n"
                       "  members: [{name: m, address: a, port: 1, backup: true}]\n",
       .line = 3,
       .message = "pool \"p\" has only backup members"},
      {.description = "TCP check of an API server",
       .yaml = admin + "pools:\n- name: p\n  health_monitor: {type: TCP}\n" + members,
       .line = 4,
       .message = "pool \"p\" checks port 6443 with a TCP monitor, which passes while an API "
                  "server is not ready; use type: HTTPS with path: /readyz"},
      {.description = "TCP check of an ingress router is fine",
       .yaml = admin + "pools:\n- name: p\n  health_monitor: {type: TCP}\n"
                       "  members: [{name: m, address: a, port: 443}]\n",
       .line = 0,
       .message = nullptr},
      {.description = "no members",
       .yaml = admin + "pools:\n- name: p\n  health_monitor: none\n",
       .line = 3,
       .message = "pool \"p\" has no members"},
      {.description = "bearer token over HTTP",
       .yaml = admin + "pools:\n- name: p\n  health_monitor: {type: HTTP, bearer_token_file: /b}\n"
                       "  members: [{name: m, address: a, port: 80}]\n",
       .line = 4,
       .message = "sends its bearer token in clear text over HTTP"},
      {.description = "members_from without a bootstrap member",
       .yaml = admin + "pools:\n- name: p\n  health_monitor: {type: HTTPS}\n  members_from:\n"
                       "    kubernetes: {}\n  members: [{name: vip, address: 10.0.0.1, port: 6443, "
                       "backup: true}]\n",
       .line = 6,  // the kubernetes key (admin takes a line)
       .message = "follows the Kubernetes API but lists no bootstrap member"},
      {.description = "members_from with a kubeconfig that cannot be read",
       .yaml = admin +
               "pools:\n- name: p\n  health_monitor: {type: HTTPS}\n  members_from:\n"
               "    kubernetes: {kubeconfig: /nonexistent/kubeconfig}\n" +
               members,
       .line = 6,
       .message = "kubeconfig /nonexistent/kubeconfig cannot be read (No such file or directory)"},
      {.description = "members_from with a bootstrap member and no kubeconfig: quiet",
       .yaml = admin +
               "pools:\n- name: p\n  health_monitor: {type: HTTPS}\n  members_from:\n"
               "    kubernetes: {}\n" +
               members,
       .line = 0,
       .message = nullptr},
  };
  for (const Case& c : cases) {
    const std::vector<Diagnostic> advice = advice_for(c.yaml);
    if (c.message == nullptr) {
      EXPECT_TRUE(advice.empty()) << c.description << "\n" << all(advice);
      continue;
    }
    EXPECT_TRUE(testing::has_warning(advice, c.line, c.message))
        << c.description << ": want line " << c.line << " \"" << c.message << "\", got\n"
        << all(advice);
    for (const Diagnostic& d : advice) EXPECT_FALSE(d.is_error()) << d.to_string();
  }
}

TEST(Advise, WithoutLoadResultEveryPoolWithoutMonitorIsReported) {
  model::Process process;
  process.admin.token_file = "/t";
  model::Config config;
  config.source_file = "api.yaml";
  model::Pool pool;
  pool.name = "p";
  pool.members.push_back(model::Member{.name = "m", .address = "a", .port = 1});
  config.pools.push_back(pool);
  const std::vector<Diagnostic> advice = advise(process, config);
  ASSERT_EQ(advice.size(), 1u) << all(advice);
  EXPECT_NE(advice[0].message.find("has no health monitor"), std::string::npos);
  EXPECT_TRUE(advise(process, config, {"p"}).empty());
}

TEST(Advise, ListenerOnAnAddressThisHostDoesNotHold) {
  const std::string yaml = std::string(kQuietAdmin) +
                           "listeners:\n"
                           "- {name: vip, bind: \"10.99.0.100:6443\", pool: p}\n"
                           "- {name: own, bind: \"10.99.0.11:6443\", pool: p}\n"
                           "- {name: all, bind: \":6444\", pool: p}\n"
                           "- {name: lo, bind: \"127.0.0.2:6445\", pool: p}\n"
                           "- {name: v6, bind: \"[fd00:0::1]:6446\", pool: p}\n"
                           "pools:\n- name: p\n  health_monitor: {type: HTTPS}\n"
                           "  members: [{name: m, address: 10.0.0.1, port: 6443}]\n";
  const LoadResult r = load(yaml);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const LocalAddresses local = std::vector<std::string>{"127.0.0.1", "10.99.0.11", "fd00::1"};
  const std::vector<Diagnostic> advice = advise(*r.process, *r.config, r.monitor_opt_outs, local);
  ASSERT_EQ(advice.size(), 1u) << all(advice);
  EXPECT_TRUE(testing::has_warning(advice, 3,
                                   "listener \"vip\" binds 10.99.0.100, which is not "
                                   "an address of this host"))
      << all(advice);
  EXPECT_NE(advice[0].message.find("set freebind: true"), std::string::npos);

  // With freebind, or when the caller could not read the host's addresses: no warning.
  model::Config freebind = *r.config;
  for (model::Listener& l : freebind.listeners) l.freebind = true;
  EXPECT_TRUE(advise(*r.process, freebind, r.monitor_opt_outs, local).empty());
  EXPECT_TRUE(advise(*r.process, *r.config, r.monitor_opt_outs).empty());
}

}  // namespace
}  // namespace vigil::config
