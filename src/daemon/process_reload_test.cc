#include "daemon/process_reload.h"

#include <gtest/gtest.h>

#include <functional>

namespace vigil::daemon {
namespace {

using namespace std::chrono_literals;

model::Process running() {
  return {.admin = {.listen = "127.0.0.1:8404",
                    .token_file = "/etc/vigil/token",
                    .read_token_file = "/etc/vigil/read-token",
                    .state_file = "/var/lib/vigil/state.json",
                    .octavia_project = "p1"},
          .log = {.format = model::LogFormat::kText},
          .workers = 2,
          .shutdown_grace = 30s};
}

TEST(ReloadProcess, TheSameFileChangesNothingAndSaysNothing) {
  const ProcessReload r = reload_process(running(), running());
  EXPECT_EQ(r.next, running());
  EXPECT_TRUE(r.warnings.empty());
}

// What a reload carries out at once: the file's value runs, without a warning.
TEST(ReloadProcess, TakesEffect) {
  struct Case {
    const char* description;
    std::function<void(model::Process&)> change;
  };
  const Case cases[] = {
      {.description = "admin.token_file",
       .change = [](model::Process& p) { p.admin.token_file = "/etc/vigil/rotated"; }},
      {.description = "admin.read_token_file",
       .change = [](model::Process& p) { p.admin.read_token_file = ""; }},
      {.description = "admin.octavia_project",
       .change = [](model::Process& p) { p.admin.octavia_project = "p2"; }},
      {.description = "admin.octavia_endpoint",
       .change = [](model::Process& p) { p.admin.octavia_endpoint = "https://cloud.example/lb"; }},
      {.description = "admin.octavia_pagination_max_limit",
       .change = [](model::Process& p) { p.admin.octavia_pagination_max_limit = 5; }},
      {.description = "log.format",
       .change = [](model::Process& p) { p.log.format = model::LogFormat::kJson; }},
      {.description = "shutdown_grace", .change = [](model::Process& p) { p.shutdown_grace = 0s; }},
  };
  for (const Case& c : cases) {
    model::Process loaded = running();
    c.change(loaded);
    const ProcessReload r = reload_process(running(), loaded);
    EXPECT_EQ(r.next, loaded) << c.description;
    EXPECT_TRUE(r.warnings.empty()) << c.description;
  }
}

// What only a restart carries out: the running value stays, and the reload says so.
TEST(ReloadProcess, TakesARestart) {
  struct Case {
    const char* description;
    std::function<void(model::Process&)> change;
    const char* warning;
  };
  const Case cases[] = {
      {.description = "admin.listen",
       .change = [](model::Process& p) { p.admin.listen = "[::1]:9000"; },
       .warning = "admin.listen changed from \"127.0.0.1:8404\" to \"[::1]:9000\": it takes a "
                  "restart; still using \"127.0.0.1:8404\""},
      {.description = "admin.socket",
       .change = [](model::Process& p) { p.admin.socket = "/run/vigil/admin.sock"; },
       .warning = "admin.socket changed from \"\" to \"/run/vigil/admin.sock\": it takes a "
                  "restart; still using \"\""},
      {.description = "admin.state_file",
       .change = [](model::Process& p) { p.admin.state_file = "/s"; },
       .warning = "admin.state_file changed from \"/var/lib/vigil/state.json\" to \"/s\": it "
                  "takes a restart; still using \"/var/lib/vigil/state.json\""},
      {.description = "peers",
       .change =
           [](model::Process& p) {
             p.peers.push_back({.name = "lb-c", .address = "192.0.2.3", .port = 7946});
           },
       .warning = "peers changed: it takes a restart; still syncing with the nodes vigil started "
                  "with"},
      {.description = "admin.store",
       .change =
           [](model::Process& p) {
             p.admin.store.type = model::StoreType::kEtcd;
             p.admin.store.endpoints = {"http://127.0.0.1:2379"};
           },
       .warning = "admin.store changed: it takes a restart; still using the store vigil started "
                  "with"},
      {.description = "peer_name",
       .change = [](model::Process& p) { p.peer_name = "lb-b"; },
       .warning = "peer_name changed from \"\" to \"lb-b\": it takes a restart; still using \"\""},
      {.description = "peers_auth.token_file",
       .change = [](model::Process& p) { p.peers_auth.token_file = "/t"; },
       .warning = "peers_auth.token_file changed from \"\" to \"/t\": it takes a restart; still "
                  "using \"\""},
  };
  for (const Case& c : cases) {
    model::Process loaded = running();
    c.change(loaded);
    const ProcessReload r = reload_process(running(), loaded);
    EXPECT_EQ(r.next, running()) << c.description;
    ASSERT_EQ(r.warnings.size(), 1u) << c.description;
    EXPECT_EQ(r.warnings[0], c.warning) << c.description;
  }
}

TEST(ReloadProcess, BothRestartOnlyChangesAreReportedBesideTheOthers) {
  model::Process loaded = running();
  loaded.admin.listen = "127.0.0.1:9999";
  loaded.admin.state_file = "/s";
  loaded.shutdown_grace = 5s;
  const ProcessReload r = reload_process(running(), loaded);
  EXPECT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.next.admin, running().admin);
  EXPECT_EQ(r.next.shutdown_grace, 5s);
}

// The worker threads are started once; a reload has never reported a new count, and does not.
TEST(ReloadProcess, TheStoreKeyMovedInTheFileIsNoChange) {
  model::Process loaded = running();
  loaded.admin.store.where.line = 42;
  EXPECT_TRUE(reload_process(running(), loaded).warnings.empty());
}

TEST(ReloadProcess, WorkersStayAsTheyRun) {
  model::Process loaded = running();
  loaded.workers = 8;
  const ProcessReload r = reload_process(running(), loaded);
  EXPECT_EQ(r.next.workers, 2);
  EXPECT_TRUE(r.warnings.empty());
}

}  // namespace
}  // namespace vigil::daemon
