// The process settings (admin, log, workers, shutdown_grace): the file's top level loads them
// into model::Process, beside its load balancer, in either format.
#include <gtest/gtest.h>

#include "config/haproxy/loader.h"
#include "config/loader.h"
#include "config/test_util.h"

namespace vigil::config {
namespace {

using namespace std::chrono_literals;
using testing::all;
using testing::has_error;
using testing::kListenerAndPool;
using testing::load;

TEST(ProcessKeys, LoadWithEveryValue) {
  const LoadResult r = load(std::string(R"(
admin:
  listen: "[::1]:9000"
  token_file: /t
  read_token_file: /r
  state_file: /s
  octavia_project: p1
  octavia_endpoint: https://cloud.example/load-balancer/
  octavia_pagination_max_limit: 5
log: {format: json}
workers: 3
shutdown_grace: 5s
)") + std::string(kListenerAndPool));
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  ASSERT_TRUE(r.process);
  const model::Process expected{.admin = {.listen = "[::1]:9000",
                                          .token_file = "/t",
                                          .read_token_file = "/r",
                                          .state_file = "/s",
                                          .octavia_project = "p1",
                                          .octavia_endpoint = "https://cloud.example/load-balancer",
                                          .octavia_pagination_max_limit = 5},
                                .log = {.format = model::LogFormat::kJson},
                                .workers = 3,
                                .shutdown_grace = 5s};
  EXPECT_EQ(*r.process, expected);
  EXPECT_EQ(r.config->listeners.size(), 1u);
}

TEST(ProcessKeys, AnOctaviaEndpointIsAnHttpUrlWithoutAQuery) {
  for (const char* bad :
       {"cloud.example/lb", "ftp://cloud.example", "https://", "http://h/?a=1", "http://h/#top"}) {
    const LoadResult r = load(std::string("admin: {octavia_endpoint: \"") + bad + "\"}" +
                              std::string(kListenerAndPool));
    EXPECT_TRUE(has_error(r, 1, "is no http:// or https:// URL without a query"))
        << bad << ": " << all(r.diagnostics);
  }
}

TEST(ProcessKeys, AnOctaviaPageHoldsAtLeastOneObject) {
  for (const char* bad : {"0", "-1", "1000001", "many"}) {
    const LoadResult r = load(std::string("admin: {octavia_pagination_max_limit: ") + bad + "}" +
                              std::string(kListenerAndPool));
    EXPECT_TRUE(has_error(r, 1, "octavia_pagination_max_limit"))
        << bad << ": " << all(r.diagnostics);
  }
}

// admin.metrics: the members' histograms are left out of a scrape unless it asks, or this says.
TEST(ProcessKeys, MetricsMemberHistogramsIsASwitchOffByDefault) {
  EXPECT_FALSE(model::Process{}.admin.metrics.member_histograms);
  const LoadResult on =
      load("admin: {metrics: {member_histograms: true}}\n" + std::string(kListenerAndPool));
  ASSERT_TRUE(on.ok()) << all(on.diagnostics);
  EXPECT_TRUE(on.process->admin.metrics.member_histograms);
  const LoadResult typo =
      load("admin: {metrics: {member_histogram: true}}\n" + std::string(kListenerAndPool));
  EXPECT_TRUE(has_error(typo, 1, "member_histogram")) << all(typo.diagnostics);
}

// admin.metrics.scopes: auto unless it names some; a scope it does not know is an error.
TEST(ProcessKeys, MetricsScopesAreTheDefaultScrapes) {
  using model::MetricsScope;
  const std::vector<MetricsScope> all_four{MetricsScope::kProcess, MetricsScope::kListener,
                                           MetricsScope::kPool, MetricsScope::kMember};
  EXPECT_TRUE(model::Process{}.admin.metrics.auto_scopes);
  EXPECT_EQ(model::Process{}.admin.metrics.scopes, all_four);
  const LoadResult two =
      load("admin: {metrics: {scopes: [process, pool]}}\n" + std::string(kListenerAndPool));
  ASSERT_TRUE(two.ok()) << all(two.diagnostics);
  EXPECT_EQ(two.process->admin.metrics.scopes,
            (std::vector<MetricsScope>{MetricsScope::kProcess, MetricsScope::kPool}));
  EXPECT_FALSE(two.process->admin.metrics.auto_scopes) << "a list means exactly that list";
  const LoadResult every = load("admin: {metrics: {scopes: [process, listener, pool, member]}}\n" +
                                std::string(kListenerAndPool));
  ASSERT_TRUE(every.ok()) << all(every.diagnostics);
  EXPECT_FALSE(every.process->admin.metrics.auto_scopes) << "all four, at any size";
  EXPECT_EQ(every.process->admin.metrics.scopes, all_four);
  const LoadResult bad =
      load("admin: {metrics: {scopes: [process, pools]}}\n" + std::string(kListenerAndPool));
  EXPECT_TRUE(has_error(bad, 1,
                        "admin.metrics.scopes: unknown scope \"pools\"; use process, listener, "
                        "pool or member"))
      << all(bad.diagnostics);
  EXPECT_TRUE(has_error(bad, 1, "(or `scopes: auto` instead of a list)")) << all(bad.diagnostics);
  const LoadResult none = load("admin: {metrics: {scopes: []}}\n" + std::string(kListenerAndPool));
  EXPECT_TRUE(has_error(none, 1, "name at least one scope")) << all(none.diagnostics);
}

// `scopes: auto` is the default spelled out; any other word is an error naming auto, at its line.
TEST(ProcessKeys, MetricsScopesAutoIsAWordNotAScope) {
  const LoadResult spelled =
      load("admin: {metrics: {scopes: auto}}\n" + std::string(kListenerAndPool));
  ASSERT_TRUE(spelled.ok()) << all(spelled.diagnostics);
  EXPECT_EQ(spelled.process->admin.metrics, model::AdminMetrics{});
  const LoadResult word =
      load("admin:\n  metrics:\n    scopes: all\n" + std::string(kListenerAndPool));
  EXPECT_TRUE(has_error(word, 3,
                        "admin.metrics.scopes: expected auto or a list of scopes, like [process, "
                        "pool], got \"all\""))
      << all(word.diagnostics);
  const LoadResult listed_auto =
      load("admin:\n  metrics:\n    scopes: [auto]\n" + std::string(kListenerAndPool));
  EXPECT_TRUE(has_error(listed_auto, 3,
                        "admin.metrics.scopes: unknown scope \"auto\"; use process, listener, "
                        "pool or member (or `scopes: auto` instead of a list)"))
      << all(listed_auto.diagnostics);
}

TEST(ProcessKeys, AbsentKeysGiveTheDefaults) {
  const LoadResult r = load(kListenerAndPool);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(*r.process, model::Process{});
  EXPECT_EQ(r.process->admin.listen, "127.0.0.1:8404");
  EXPECT_EQ(r.process->shutdown_grace, 30s);
}

TEST(ProcessKeys, ZeroGraceCutsAtOnce) {
  const LoadResult r = load(std::string("shutdown_grace: 0s") + std::string(kListenerAndPool));
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.process->shutdown_grace, 0s);
}

// A file with an error yields neither half: a daemon must not start or reload on its settings.
TEST(ProcessKeys, AnErrorAnywhereGivesNoProcess) {
  const LoadResult bad_process = load(std::string("workers: -1") + std::string(kListenerAndPool));
  EXPECT_TRUE(has_error(bad_process, 1, "workers: expected an integer from 0 to 1024"))
      << all(bad_process.diagnostics);
  EXPECT_FALSE(bad_process.process);
  EXPECT_FALSE(bad_process.config);

  const LoadResult bad_pool =
      load(std::string("workers: 2") + std::string(kListenerAndPool) + "    algorithm: fastest\n");
  EXPECT_FALSE(bad_pool.ok());
  EXPECT_FALSE(bad_pool.process);
  EXPECT_FALSE(bad_pool.config);
}

// The process's admin.listen is checked against the load balancer's listeners, at the listener's
// line, as before the two were apart.
TEST(ProcessKeys, AListenerOnTheAdminPortIsAnError) {
  const LoadResult r =
      load(std::string("admin: {listen: \"127.0.0.1:6443\"}") + std::string(kListenerAndPool));
  EXPECT_TRUE(has_error(r, 2, "clashes with admin.listen 127.0.0.1:6443")) << all(r.diagnostics);
  EXPECT_FALSE(r.process);
}

TEST(ProcessKeys, HaproxyCfgNbthreadIsWorkers) {
  const LoadResult r = load_haproxy_cfg(R"(global
    nbthread 6
frontend api
    bind 127.0.0.1:6443
    default_backend masters
backend masters
    server m1 10.0.0.11:6443 check
)",
                                        "haproxy.cfg");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  ASSERT_TRUE(r.process);
  EXPECT_EQ(r.process->workers, 6);
  model::Process rest = *r.process;
  rest.workers = 0;
  EXPECT_EQ(rest, model::Process{});  // haproxy.cfg has no place for the others
}

}  // namespace
}  // namespace vigil::config
