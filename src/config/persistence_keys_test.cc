// The pool key session_persistence: what it loads into, and each bad value refused at its line.
#include <gtest/gtest.h>

#include <string>

#include "config/loader.h"
#include "config/test_util.h"

namespace vigil::config {
namespace {

using testing::all;
using testing::has_error;
using testing::load;

const std::string kListener = "listeners: [{name: l, bind: \":1\", pool: p}]\n";
const std::string kPoolHead = "pools:\n  - name: p\n    health_monitor: {type: TCP}\n";
const std::string kMembers = "    members: [{name: a, address: 10.0.0.1, port: 1}]\n";

TEST(SessionPersistence, LoadsAsWritten) {
  const LoadResult r = load(
      kListener + kPoolHead +
      "    session_persistence: {type: SOURCE_IP, timeout: 10m, granularity: 255.255.255.0}\n" +
      kMembers);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const model::SessionPersistence& sp = r.config->pools.at(0).session_persistence;
  EXPECT_EQ(sp.type, model::Persistence::kSourceIp);
  EXPECT_EQ(sp.timeout, std::chrono::minutes(10));
  EXPECT_EQ(sp.granularity, "255.255.255.0");
}

TEST(SessionPersistence, DefaultsAreOctavias) {
  const LoadResult r =
      load(kListener + kPoolHead + "    session_persistence: {type: source_ip}\n" + kMembers);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const model::SessionPersistence& sp = r.config->pools.at(0).session_persistence;
  EXPECT_EQ(sp.type, model::Persistence::kSourceIp);
  EXPECT_EQ(sp.timeout, std::chrono::seconds(360));
  EXPECT_EQ(sp.granularity, "");
}

TEST(SessionPersistence, AbsentIsNone) {
  const LoadResult r = load(kListener + kPoolHead + kMembers);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.config->pools.at(0).session_persistence.type, model::Persistence::kNone);
}

TEST(SessionPersistence, BadValuesNameTheirLine) {
  struct Case {
    const char* description;
    std::string yaml;
    int line;
    const char* message;
  };
  const Case cases[] = {
      {.description = "a cookie type",
       .yaml = "    session_persistence:\n      type: HTTP_COOKIE\n",
       .line = 6,
       .message = "unsupported session persistence type \"HTTP_COOKIE\"; use SOURCE_IP"},
      {.description = "no type",
       .yaml = "    session_persistence:\n      timeout: 60s\n",
       .line = 5,
       .message = "missing required key \"type\""},
      {.description = "not a netmask",
       .yaml = "    session_persistence:\n      type: SOURCE_IP\n      granularity: 255.0.255.0\n",
       .line = 7,
       .message = "is not a netmask: its one bits must come first"},
      {.description = "a prefix length instead of a mask",
       .yaml = "    session_persistence:\n      type: SOURCE_IP\n      granularity: 24\n",
       .line = 7,
       .message = "\"24\" is not a netmask"},
      {.description = "zero timeout",
       .yaml = "    session_persistence:\n      type: SOURCE_IP\n      timeout: 0s\n",
       .line = 7,
       .message = "session_persistence.timeout: must be greater than 0"},
      {.description = "unknown key",
       .yaml = "    session_persistence:\n      type: SOURCE_IP\n      cookie_name: x\n",
       .line = 7,
       .message = "unknown key \"cookie_name\" in session_persistence"},
  };
  for (const Case& c : cases) {
    const LoadResult r = load(kListener + kPoolHead + c.yaml + kMembers);
    EXPECT_FALSE(r.ok()) << c.description;
    EXPECT_TRUE(has_error(r, c.line, c.message))
        << c.description << ": want line " << c.line << " \"" << c.message << "\", got\n"
        << all(r.diagnostics);
  }
}

}  // namespace
}  // namespace vigil::config
