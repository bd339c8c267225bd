// The listener key redirect_from: what it loads into, and each bad value refused at its line with
// the file's name.
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

TEST(RedirectFrom, LoadsIpv4AndIpv6) {
  const LoadResult r = load(
      "listeners:\n"
      "  - {name: v4, bind: \":9445\", pool: p, redirect_from: \"192.0.2.10:6443\"}\n"
      "  - {name: v6, bind: \"[::]:9446\", pool: p, redirect_from: \"[2001:db8::10]:6443\"}\n"
      "  - {name: any4, bind: \"0.0.0.0:9447\", pool: p, redirect_from: \"192.0.2.11:6443\"}\n" +
      kPool);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.config->listeners.at(0).redirect_from,
            (model::RedirectFrom{.address = "192.0.2.10", .port = 6443}));
  EXPECT_EQ(r.config->listeners.at(1).redirect_from,
            (model::RedirectFrom{.address = "2001:db8::10", .port = 6443}));
}

TEST(RedirectFrom, AbsentIsNoRedirect) {
  const LoadResult r = load("listeners: [{name: l, bind: \":1\", pool: p}]\n" + kPool);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_FALSE(r.config->listeners.at(0).redirect_from);
}

TEST(RedirectFrom, BadValuesNameTheirFileAndLine) {
  struct Case {
    const char* description;
    std::string yaml;
    int line;
    const char* message;
  };
  const Case cases[] = {
      {.description = "no port",
       .yaml = "listeners:\n  - name: l\n    bind: \":9445\"\n    pool: p\n"
               "    redirect_from: 192.0.2.10\n",
       .line = 5,
       .message = "listener.redirect_from: \"192.0.2.10\" has no port"},
      {.description = "port 0",
       .yaml = "listeners:\n  - name: l\n    bind: \":9445\"\n    pool: p\n"
               "    redirect_from: \"192.0.2.10:0\"\n",
       .line = 5,
       .message = "the port must be the one clients connect to (1 to 65535), not 0"},
      {.description = "not an address",
       .yaml = "listeners:\n  - name: l\n    bind: \":9445\"\n    pool: p\n"
               "    redirect_from: \"vip.example:6443\"\n",
       .line = 5,
       .message = "the address must be an IP address"},
      {.description = "IPv6 without brackets",
       .yaml = "listeners:\n  - name: l\n    bind: \":9445\"\n    pool: p\n"
               "    redirect_from: \"2001:db8::10:6443\"\n",
       .line = 5,
       .message = "write an IPv6 address in brackets"},
      {.description = "every address",
       .yaml = "listeners:\n  - name: l\n    bind: \":9445\"\n    pool: p\n"
               "    redirect_from: \"*:6443\"\n",
       .line = 5,
       .message = "name the one address clients connect to"},
      {.description = "the unspecified address",
       .yaml = "listeners:\n  - name: l\n    bind: \":9445\"\n    pool: p\n"
               "    redirect_from: \"0.0.0.0:6443\"\n",
       .line = 5,
       .message = "not every address"},
      {.description = "port out of range",
       .yaml = "listeners:\n  - name: l\n    bind: \":9445\"\n    pool: p\n"
               "    redirect_from: \"192.0.2.10:70000\"\n",
       .line = 5,
       .message = "the port must be a number from 0 to 65535"},
      {.description = "a list",
       .yaml = "listeners:\n  - name: l\n    bind: \":9445\"\n    pool: p\n"
               "    redirect_from: [\"192.0.2.10:6443\"]\n",
       .line = 5,
       .message = "listener.redirect_from"},
      {.description = "a listener on one address",
       .yaml = "listeners:\n  - name: l\n    bind: \"192.0.2.10:9445\"\n    pool: p\n"
               "    redirect_from: \"192.0.2.10:6443\"\n",
       .line = 2,
       .message = "redirect_from needs a listener on every address"},
      {.description = "an IPv6 address to an IPv4 listener",
       .yaml = "listeners:\n  - name: l\n    bind: \"0.0.0.0:9445\"\n    pool: p\n"
               "    redirect_from: \"[2001:db8::10]:6443\"\n",
       .line = 2,
       .message = "redirect_from needs a listener on every address (bind \":9445\")"},
      {.description = "one address for two listeners",
       .yaml = "listeners:\n"
               "  - {name: a, bind: \":9445\", pool: p, redirect_from: \"192.0.2.10:6443\"}\n"
               "  - {name: b, bind: \":9446\", pool: p, redirect_from: \"192.0.2.10:6443\"}\n",
       .line = 3,
       .message = "redirect_from is listener \"a\"'s already (vigil.yaml:2)"},
  };
  for (const Case& c : cases) {
    const LoadResult r = load(c.yaml + kPool);
    EXPECT_FALSE(r.ok()) << c.description;
    EXPECT_TRUE(has_error(r, c.line, c.message))
        << c.description << ": want line " << c.line << " \"" << c.message << "\", got\n"
        << all(r.diagnostics);
    // Each message names the file and line as `vigil check` prints it.
    for (const Diagnostic& d : r.diagnostics) {
      EXPECT_TRUE(d.to_string().starts_with("vigil.yaml:")) << d.to_string();
    }
  }
}

}  // namespace
}  // namespace vigil::config
