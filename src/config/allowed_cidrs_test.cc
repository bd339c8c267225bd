// The listener key allowed_cidrs: what it loads into, and each bad value refused at its line.
#include <gtest/gtest.h>

#include <string>

#include "config/loader.h"
#include "config/test_util.h"

namespace vigil::config {
namespace {

using testing::all;
using testing::has_error;
using testing::load;

const std::string kPool =
    "pools:\n  - name: p\n    health_monitor: {type: TCP}\n"
    "    members: [{name: a, address: 10.0.0.1, port: 1}]\n";

TEST(AllowedCidrs, LoadsAsWritten) {
  const LoadResult r = load(
      "listeners:\n  - name: l\n    bind: \":1\"\n    pool: p\n"
      "    allowed_cidrs: [10.0.0.0/8, \"fd00::/8\", 192.0.2.1]\n" +
      kPool);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.config->listeners.at(0).allowed_cidrs,
            (std::vector<std::string>{"10.0.0.0/8", "fd00::/8", "192.0.2.1"}));
}

TEST(AllowedCidrs, AbsentLetsEveryClientIn) {
  const LoadResult r = load("listeners: [{name: l, bind: \":1\", pool: p}]\n" + kPool);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_TRUE(r.config->listeners.at(0).allowed_cidrs.empty());
}

TEST(AllowedCidrs, BadValuesNameTheirLine) {
  std::string many;
  for (int i = 0; i < 1001; ++i) many += (i ? ", " : "") + std::string("10.0.0.") + "0/24";
  struct Case {
    const char* description;
    std::string yaml;
    int line;
    const char* message;
  };
  const Case cases[] = {
      {.description = "not a network",
       .yaml = "listeners:\n  - name: l\n    bind: \":1\"\n    pool: p\n"
               "    allowed_cidrs:\n      - 10.0.0.0/8\n      - lb.example\n",
       .line = 7,
       .message = "listener.allowed_cidrs: \"lb.example\" is not a network"},
      {.description = "prefix too long",
       .yaml = "listeners:\n  - {name: l, bind: \":1\", pool: p,\n"
               "     allowed_cidrs: [\"::/129\"]}\n",
       .line = 3,
       .message = "the prefix length must be 0..128"},
      {.description = "not a list",
       .yaml = "listeners:\n  - {name: l, bind: \":1\", pool: p,\n"
               "     allowed_cidrs: 10.0.0.0/8}\n",
       .line = 3,
       .message = "listener.allowed_cidrs: expected a list of networks"},
      {.description = "a map in the list",
       .yaml = "listeners:\n  - {name: l, bind: \":1\", pool: p,\n"
               "     allowed_cidrs: [{cidr: 10.0.0.0/8}]}\n",
       .line = 3,
       .message = "listener.allowed_cidrs: expected a network (CIDR)"},
      {.description = "empty list",
       .yaml = "listeners:\n  - {name: l, bind: \":1\", pool: p,\n"
               "     allowed_cidrs: []}\n",
       .line = 3,
       .message = "listener.allowed_cidrs: empty; leave the key out to let every client in"},
      {.description = "over the limit",
       .yaml = "listeners:\n  - {name: l, bind: \":1\", pool: p,\n"
               "     allowed_cidrs: [" +
               many + "]}\n",
       .line = 3,
       .message = "listener.allowed_cidrs: 1001 networks; at most 1000"},
  };
  for (const Case& c : cases) {
    const LoadResult r = load(c.yaml + kPool);
    EXPECT_FALSE(r.ok()) << c.description;
    EXPECT_TRUE(has_error(r, c.line, c.message))
        << c.description << ": want line " << c.line << " \"" << c.message << "\", got\n"
        << all(r.diagnostics);
  }
}

}  // namespace
}  // namespace vigil::config
