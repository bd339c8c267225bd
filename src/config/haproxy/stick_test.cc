// A backend's `stick-table type ip` with `stick on src` becomes its pool's session_persistence
// SOURCE_IP, as Octavia's amphora writes it; every table or rule vigil cannot carry out is a
// warning at its line, and the pool keeps no client.
#include <gtest/gtest.h>

#include "config/haproxy/convert.h"
#include "config/haproxy/loader.h"
#include "config/loader.h"
#include "config/test_util.h"

namespace vigil::config::haproxy {
namespace {

using namespace std::chrono_literals;
using model::Persistence;
using testing::all;
using testing::has_warning;

// A listen section `api` with the given lines after its bind, and one server.
LoadResult load_api(std::string_view lines) {
  const std::string text =
      "listen api\n  bind :6443\n" + std::string(lines) + "  server m1 10.0.0.11:6443\n";
  return load_haproxy_cfg(text, "lb.cfg");
}

const model::SessionPersistence& persistence(const LoadResult& r) {
  return r.config->pools.at(0).session_persistence;
}

TEST(HaproxyStick, StickOnSrcKeepsClientsForTheTablesExpire) {
  const LoadResult r = load_api("  stick-table type ip size 10k expire 30m\n  stick on src\n");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_TRUE(r.diagnostics.empty()) << all(r.diagnostics);
  EXPECT_EQ(persistence(r).type, Persistence::kSourceIp);
  EXPECT_EQ(persistence(r).timeout, 30min);
  EXPECT_EQ(persistence(r).granularity, "");
}

TEST(HaproxyStick, MatchAndStoreTogetherAreStickOn) {
  const LoadResult r = load_api(
      "  stick-table type ipv6 size 1k expire 1h\n"
      "  stick match src table api\n"
      "  stick store-request src\n");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_TRUE(r.diagnostics.empty()) << all(r.diagnostics);
  EXPECT_EQ(persistence(r).type, Persistence::kSourceIp);
  EXPECT_EQ(persistence(r).timeout, 1h);
}

TEST(HaproxyStick, ATableWithoutExpireKeepsVigilsTimeoutWithAWarning) {
  // Octavia's amphora: no expire, the table's peers for an active-standby pair.
  const LoadResult r = load_api("  stick-table type ip size 10k peers lb_peers\n  stick on src\n");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(persistence(r).type, Persistence::kSourceIp);
  EXPECT_EQ(persistence(r).timeout, 360s);
  ASSERT_EQ(r.diagnostics.size(), 1u) << all(r.diagnostics);
  EXPECT_TRUE(has_warning(r.diagnostics, 3, "has no `expire`")) << all(r.diagnostics);
  EXPECT_TRUE(has_warning(r.diagnostics, 3, "vigil forgets one unseen for 6m"))
      << all(r.diagnostics);
}

TEST(HaproxyStick, ALargerTableThanVigilsIsAWarning) {
  const LoadResult r = load_api("  stick-table type ip size 1m expire 10m\n  stick on src\n");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(persistence(r).type, Persistence::kSourceIp);
  EXPECT_TRUE(has_warning(r.diagnostics, 3, "vigil's table holds 10000 clients per pool"))
      << all(r.diagnostics);
}

TEST(HaproxyStick, AnExpireUnderASecondIsRaised) {
  // vigil's table counts whole seconds; HAProxy's limit (24.8 days) is under vigil's 30.
  const LoadResult r = load_api("  stick-table type ip size 10k expire 500ms\n  stick on src\n");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(persistence(r).timeout, 1s);
  EXPECT_TRUE(has_warning(r.diagnostics, 3, "`expire 500ms` becomes 1s")) << all(r.diagnostics);
}

TEST(HaproxyStick, WhatVigilCannotCarryOutIsAWarningAndKeepsNoClient) {
  struct Case {
    std::string_view lines;
    std::vector<std::pair<int, std::string_view>> warnings;  // line, text
  };
  const Case cases[] = {
      {"  stick on src\n", {{3, "ignored: `stick on src`: listen \"api\" has no `stick-table"}}},
      {"  stick-table type ip size 10k expire 30m\n",
       {{3, "ignored: `stick-table type ip size 10k expire 30m`: no `stick on src`"}}},
      {"  stick-table type string len 32 size 10k\n  stick on src\n",
       {{3, "a table of client addresses is `type ip`"},
        {4, "ignored: `stick on src`: a table of client addresses"}}},
      {"  stick-table type ip size 10k\n  stick on req.cook(SERVERID)\n",
       {{3, "no `stick on src`"}, {4, "by the client's address only"}}},
      {"  stick-table type ip size 10k\n  stick on src if { src 10.0.0.0/8 }\n",
       {{3, "no `stick on src`"}, {4, "vigil does not evaluate conditions"}}},
      {"  stick-table type ip size 10k\n  stick on src table other\n",
       {{3, "no `stick on src`"}, {4, "in the pool's own table"}}},
      {"  stick-table type ip size 10k\n  stick store-response src\n",
       {{3, "no `stick on src`"}, {4, "before any response"}}},
      {"  stick-table type ip size 10k\n  stick match src\n",
       {{3, "no `stick on src`"}, {4, "(a match and a store)"}}},
      {"  stick-table type ip size 10k bogus 1\n  stick on src\n",
       {{3, "vigil does not know `bogus` here"}, {4, "has no `stick-table type ip`"}}},
  };
  for (const Case& c : cases) {
    const LoadResult r = load_api(c.lines);
    ASSERT_TRUE(r.ok()) << c.lines << all(r.diagnostics);
    EXPECT_EQ(persistence(r).type, Persistence::kNone) << c.lines;
    ASSERT_EQ(r.diagnostics.size(), c.warnings.size()) << c.lines << all(r.diagnostics);
    for (const auto& [line, text] : c.warnings) {
      EXPECT_TRUE(has_warning(r.diagnostics, line, text)) << c.lines << all(r.diagnostics);
    }
  }
}

TEST(HaproxyStick, ABadSizeOrExpireIsAnErrorAtItsLine) {
  for (std::string_view table :
       {"  stick-table type ip size lots\n", "  stick-table type ip size 10k expire soon\n"}) {
    const LoadResult r = load_api(std::string(table) + "  stick on src\n");
    EXPECT_FALSE(r.ok()) << table;
    ASSERT_FALSE(r.diagnostics.empty()) << table;
    EXPECT_EQ(r.diagnostics[0].where.line, 3) << all(r.diagnostics);
    EXPECT_TRUE(r.diagnostics[0].is_error()) << all(r.diagnostics);
  }
}

TEST(HaproxyStick, AFrontendsTableIsAWarning) {
  const LoadResult r = load_haproxy_cfg(R"(frontend f
  bind :6443
  stick-table type ip size 10k expire 30m
  default_backend b
backend b
  stick on src table f
  server m1 10.0.0.11:6443
)",
                                        "lb.cfg");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(persistence(r).type, Persistence::kNone);
  EXPECT_TRUE(has_warning(r.diagnostics, 3, "a backend's")) << all(r.diagnostics);
  EXPECT_TRUE(has_warning(r.diagnostics, 6, "in the pool's own table")) << all(r.diagnostics);
}

TEST(HaproxyStick, ConvertWritesTheSessionPersistence) {
  const LoadResult r = load_api("  stick-table type ip size 10k expire 30m\n  stick on src\n");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const std::string yaml = to_yaml(*r.process, *r.config);
  EXPECT_NE(yaml.find("    session_persistence:\n      type: SOURCE_IP\n      timeout: 30m\n"),
            std::string::npos)
      << yaml;
  const LoadResult back = load_yaml(yaml, "converted.yaml");
  ASSERT_TRUE(back.ok()) << yaml << all(back.diagnostics);
  EXPECT_EQ(back.config->pools.at(0).session_persistence, persistence(r)) << yaml;
}

}  // namespace
}  // namespace vigil::config::haproxy
