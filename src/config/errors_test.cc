// Every kind of config error names its line, says what was expected, and never stops the others
// from being reported.
#include <gtest/gtest.h>

#include "config/loader.h"
#include "config/test_util.h"

namespace vigil::config {
namespace {

using testing::all;
using testing::has_error;
using testing::load;

// A valid base: line 1 listeners, line 2 pools, line 3 the pool, 4 its monitor, 5 its members.
constexpr std::string_view kBase = R"(listeners: [{name: api, bind: ":6443", pool: masters}]
pools:
  - name: masters
    health_monitor: {type: HTTPS}
    members: [{name: m1, address: 10.0.0.1, port: 6443}]
)";

struct ErrorCase {
  const char* description;
  std::string yaml;
  int line;
  const char* message;  // a part of the error's message
};

void expect_error(const ErrorCase& c) {
  const LoadResult r = load(c.yaml);
  EXPECT_FALSE(r.ok()) << c.description;
  EXPECT_FALSE(r.config) << c.description;
  EXPECT_TRUE(has_error(r, c.line, c.message))
      << c.description << ": want line " << c.line << " \"" << c.message << "\", got\n"
      << all(r.diagnostics);
}

TEST(Errors, BaseIsValid) {
  const LoadResult r = load(kBase);
  EXPECT_TRUE(r.ok()) << all(r.diagnostics);
}

TEST(Errors, UnknownKeysWithSuggestions) {
  const ErrorCase cases[] = {
      {.description = "monitor key",
       .yaml = R"(
pools:
  - name: masters
    health_monitor:
      type: HTTPS
      intervall: 5s
)",
       .line = 5,
       .message = "unknown key \"intervall\" in health_monitor (did you mean \"interval\"?)"},
      {.description = "top level",
       .yaml = "listener: []\n",
       .line = 1,
       .message = "unknown key \"listener\" at top level (did you mean \"listeners\"?)"},
      {.description = "member",
       .yaml = "pools: [{name: p, members: [{name: m, address: a, port: 1, wieght: 2}]}]\n",
       .line = 1,
       .message = "unknown key \"wieght\" in member (did you mean \"weight\"?)"},
      {.description = "no suggestion when nothing is close",
       .yaml = "pools: [{name: p, colour: blue}]\n",
       .line = 1,
       .message = "unknown key \"colour\" in pool"},
      {.description = "tls",
       .yaml = "pools: [{name: p, health_monitor: {type: HTTPS, tls: {verfy: true}}}]\n",
       .line = 1,
       .message = "unknown key \"verfy\" in health_monitor.tls (did you mean \"verify\"?)"},
  };
  for (const ErrorCase& c : cases) expect_error(c);
}

TEST(Errors, UnknownKeyWithoutSuggestionSaysNothingMore) {
  const LoadResult r = load("pools: [{name: p, colour: blue}]\n");
  ASSERT_EQ(count_errors(r.diagnostics), 1) << all(r.diagnostics);
  EXPECT_EQ(r.diagnostics[0].to_string(), "vigil.yaml:1: error: unknown key \"colour\" in pool");
}

TEST(Errors, ValuesOfTheWrongKindOrRange) {
  const ErrorCase cases[] = {
      {.description = "bad duration",
       .yaml = "pools: [{name: p, health_monitor: {type: TCP, interval: 5}}]\n",
       .line = 1,
       .message = "health_monitor.interval: invalid duration \"5\": a unit is required"},
      {.description = "zero duration",
       .yaml = "pools: [{name: p, connect_timeout: 0s}]\n",
       .line = 1,
       .message = "pool.connect_timeout: must be greater than 0"},
      {.description = "duration too long",
       .yaml = "pools: [{name: p, health_monitor: {type: TCP, timeout: 48h}}]\n",
       .line = 1,
       .message = "health_monitor.timeout: 48h is too long"},
      {.description = "duration whose parts add up past what fits",
       .yaml = "pools:\n- name: p\n  health_monitor:\n    type: TCP\n"
               "    interval: 277777h277777h277777h277777h277777h277777h277777h277777h277777h\n",
       .line = 5,
       .message = "health_monitor.interval: invalid duration \"277777h277777h"},
      {.description = "member idle timeout without a unit",
       .yaml = "listeners:\n- name: l\n  member_idle_timeout: 50\n",
       .line = 3,
       .message = "listener.member_idle_timeout: invalid duration \"50\": a unit is required"},
      {.description = "member idle timeout past 30 days",
       .yaml = "listeners: [{name: l, member_idle_timeout: 800h}]\n",
       .line = 1,
       .message = "listener.member_idle_timeout: 800h is too long"},
      {.description = "member port 0",
       .yaml = "pools: [{name: p, members: [{name: m, address: a, port: 0}]}]\n",
       .line = 1,
       .message = "member.port: expected an integer from 1 to 65535, got \"0\""},
      {.description = "member port 70000",
       .yaml =
           "pools:\n - name: p\n   members:\n    - name: m\n      address: a\n      port: 70000\n",
       .line = 6,
       .message = "member.port: expected an integer from 1 to 65535, got \"70000\""},
      {.description = "negative port",
       .yaml = "pools: [{name: p, members: [{name: m, address: a, port: -1}]}]\n",
       .line = 1,
       .message = "got \"-1\""},
      {.description = "weight 300",
       .yaml = "pools: [{name: p, members: [{name: m, address: a, port: 1, weight: 300}]}]\n",
       .line = 1,
       .message = "member.weight: expected an integer from 0 to 256, got \"300\""},
      {.description = "abc for an int",
       .yaml = "pools: [{name: p, retries: abc}]\n",
       .line = 1,
       .message = "pool.retries: expected an integer from 0 to 10, got \"abc\""},
      {.description = "list for a map",
       .yaml = "pools: [{name: p, health_monitor: [TCP]}]\n",
       .line = 1,
       .message = "health_monitor: expected a map of keys, got a list"},
      {.description = "map for a list",
       .yaml = "listeners: {name: api}\n",
       .line = 1,
       .message = "listeners: expected a list of listeners, got a map"},
      {.description = "list for a string",
       .yaml = "admin: {token_file: [a, b]}\n",
       .line = 1,
       .message = "admin.token_file: expected a string, got a list"},
      {.description = "nothing for a required string",
       .yaml = "pools: [{name: }]\n",
       .line = 1,
       .message = "pool.name: expected a name, got nothing"},
      {.description = "bool",
       .yaml = "pools: [{name: p, fail_open: maybe}]\n",
       .line = 1,
       .message = "pool.fail_open: expected true or false, got \"maybe\""},
      {.description = "workers",
       .yaml = "workers: -1\n",
       .line = 1,
       .message = "workers: expected an integer from 0 to 1024"},
      {.description = "max_connections",
       .yaml = "listeners: [{name: a, bind: \":1\", pool: p, max_connections: 0}]\n",
       .line = 1,
       .message = "listener.max_connections: expected an integer from 1 to 10000000"},
      {.description = "threshold",
       .yaml = "pools: [{name: p, health_monitor: {type: TCP, healthy_threshold: 11}}]\n",
       .line = 1,
       .message = "health_monitor.healthy_threshold: expected an integer from 1 to 10"},
      {.description = "algorithm",
       .yaml = "pools: [{name: p, algorithm: roundrobin}]\n",
       .line = 1,
       .message = "unknown algorithm \"roundrobin\"; use round_robin, least_connections or "
                  "source_ip (did you mean \"round_robin\"?)"},
      {.description = "HAProxy's algorithm name",
       .yaml = "pools: [{name: p, algorithm: leastconn}]\n",
       .line = 1,
       .message = "(did you mean \"least_connections\"?)"},
      {.description = "replay mode",
       .yaml = "pools:\n  - name: p\n    replay: tsl\n",
       .line = 3,
       .message = "unknown replay mode \"tsl\"; use tls, always or never (did you mean \"tls\"?)"},
      {.description = "log format",
       .yaml = "log:\n  format: jsno\n",
       .line = 2,
       .message = "unknown log format \"jsno\"; use text or json (did you mean \"json\"?)"},
      {.description = "log key", .yaml = "log: {level: debug}\n", .line = 1, .message = "level"},
      {.description = "log_connections",
       .yaml = "listeners: [{name: a, bind: \":1\", pool: p, log_connections: sometimes}]\n",
       .line = 1,
       .message = "log_connections"},
      {.description = "first_byte_timeout",
       .yaml = "pools: [{name: p, first_byte_timeout: soon}]\n",
       .line = 1,
       .message = "first_byte_timeout"},
      {.description = "monitor type",
       .yaml = "pools: [{name: p, health_monitor: {type: PING}}]\n",
       .line = 1,
       .message = "unsupported monitor type \"PING\""},
      {.description = "monitor scalar",
       .yaml = "pools: [{name: p, health_monitor: TCP}]\n",
       .line = 1,
       .message = "expected a map of keys or none, got \"TCP\""},
      {.description = "http method",
       .yaml = "pools: [{name: p, health_monitor: {type: HTTP, http_method: GTE}}]\n",
       .line = 1,
       .message = "unknown HTTP method \"GTE\" (did you mean \"GET\"?)"},
      {.description = "bad expected_codes",
       .yaml = "pools: [{name: p, health_monitor: {type: HTTP, expected_codes: \"2xx\"}}]\n",
       .line = 1,
       .message = "invalid expected_codes \"2xx\""},
      {.description = "expected_codes out of range",
       .yaml = "pools: [{name: p, health_monitor: {type: HTTP, expected_codes: 700}}]\n",
       .line = 1,
       .message = "700 is not an HTTP status code"},
      {.description = "member address with a port",
       .yaml = "pools: [{name: p, members: [{name: m, address: \"10.0.0.1:6443\", port: 1}]}]\n",
       .line = 1,
       .message = "member.address: \"10.0.0.1:6443\" is not an IP address or host name (the port"},
      {.description = "member address with a space",
       .yaml = "pools: [{name: p, members: [{name: m, address: \"a b\", port: 1}]}]\n",
       .line = 1,
       .message = "member.address: \"a b\" contains a space"},
      {.description = "member address empty",
       .yaml = "pools: [{name: p, members: [{name: m, address: \"\", port: 1}]}]\n",
       .line = 1,
       .message = "member.address: must not be empty"},
      {.description = "mistyped IPv4",
       .yaml = "pools: [{name: p, members: [{name: m, address: 192.0.2.300, port: 1}]}]\n",
       .line = 1,
       .message = "is not an IP address or host name"},
  };
  for (const ErrorCase& c : cases) expect_error(c);
}

TEST(Errors, BadBinds) {
  const ErrorCase cases[] = {
      {.description = "no port",
       .yaml = "listeners: [{name: a, bind: \"10.0.0.1\", pool: p}]",
       .line = 1,
       .message = "listener.bind: \"10.0.0.1\" has no port"},
      {.description = "port too big",
       .yaml = "listeners: [{name: a, bind: \":70000\", pool: p}]",
       .line = 1,
       .message = "the port must be a number from 0 to 65535"},
      {.description = "port not a number",
       .yaml = "listeners: [{name: a, bind: \":http\", pool: p}]",
       .line = 1,
       .message = "the port must be a number from 0 to 65535"},
      {.description = "empty port",
       .yaml = "listeners: [{name: a, bind: \"1.2.3.4:\", pool: p}]",
       .line = 1,
       .message = "the port must be a number"},
      {.description = "IPv6 without brackets",
       .yaml = "listeners: [{name: a, bind: \"::1:6443\", pool: p}]",
       .line = 1,
       .message = "write an IPv6 address in brackets"},
      {.description = "host name",
       .yaml = "listeners: [{name: a, bind: \"localhost:6443\", pool: p}]",
       .line = 1,
       .message = "the address must be an IP address"},
      {.description = "bad IPv6",
       .yaml = "listeners: [{name: a, bind: \"[::g]:6443\", pool: p}]",
       .line = 1,
       .message = "not an IPv6 address in brackets"},
      {.description = "admin.listen",
       .yaml = "admin: {listen: \"8404\"}",
       .line = 1,
       .message = "admin.listen: \"8404\" has no port"},
      {.description = "admin.socket relative",
       .yaml = "admin:\n  listen: 127.0.0.1:0\n  socket: run/admin.sock\n",
       .line = 3,
       .message = "admin.socket: \"run/admin.sock\" must be an absolute path"},
      {.description = "admin.socket too long for sun_path",
       .yaml = "admin: {socket: /" + std::string(120, 'a') + "}",
       .line = 1,
       .message = "bytes long; a Unix socket's path holds 107 at most"},
  };
  for (const ErrorCase& c : cases) expect_error(c);
}

TEST(Errors, MonitorRules) {
  const ErrorCase cases[] = {
      {.description = "fast_interval > interval",
       .yaml = "pools:\n- name: p\n  health_monitor:\n    type: TCP\n    interval: 2s\n"
               "    fast_interval: 3s\n",
       .line = 6,
       .message = "health_monitor.fast_interval (3s) must not be longer than interval (2s)"},
      {.description = "path without /",
       .yaml = "pools: [{name: p, health_monitor: {type: HTTPS, path: readyz}}]\n",
       .line = 1,
       .message = "health_monitor.path: must start with '/'"},
      {.description = "tls on a TCP monitor",
       .yaml = "pools:\n- name: p\n  health_monitor:\n    type: TCP\n    tls: {verify: true}\n",
       .line = 5,
       .message = "health_monitor.tls applies only to TLS-HELLO and HTTPS monitors, not TCP"},
      {.description = "path on a TLS-HELLO monitor (key before type)",
       .yaml = "pools:\n- name: p\n  health_monitor:\n    path: /readyz\n    type: tls-hello\n",
       .line = 4,
       .message = "health_monitor.path applies only to HTTP and HTTPS monitors, not TLS-HELLO"},
      {.description = "expected_codes on TCP",
       .yaml = "pools: [{name: p, health_monitor: {type: TCP, expected_codes: 200}}]\n",
       .line = 1,
       .message = "health_monitor.expected_codes applies only to HTTP and HTTPS"},
      {.description = "client_cert alone",
       .yaml = "pools:\n- name: p\n  health_monitor:\n    type: HTTPS\n    tls:\n"
               "      client_cert: /c.pem\n",
       .line = 5,
       .message = "client_cert and client_key go together"},
      {.description = "missing type",
       .yaml = "pools:\n- name: p\n  health_monitor:\n    interval: 5s\n",
       .line = 3,
       .message = "missing required key \"type\" in health_monitor"},
      {.description = "type none with other keys",
       .yaml = "pools:\n- name: p\n  health_monitor: {type: none, interval: 5s}\n",
       .line = 3,
       .message = "type none takes no other keys"},
      {.description = "path with a space",
       .yaml = "pools: [{name: p, health_monitor: {type: HTTP, path: \"/a b\"}}]\n",
       .line = 1,
       .message = "must not contain spaces"},
      {.description = "header injection through host",
       .yaml = "pools: [{name: p, health_monitor: {type: HTTP, host: \"a\\r\\nX: y\"}}]\n",
       .line = 1,
       .message = "health_monitor.host: must not contain control characters"},
  };
  for (const ErrorCase& c : cases) expect_error(c);
}

TEST(Errors, NamesAndReferences) {
  const ErrorCase cases[] = {
      {.description = "pool that does not exist",
       .yaml = "listeners:\n  - {name: api, bind: \":6443\", pool: mastres}\n"
               "pools: [{name: masters}]\n",
       .line = 2,
       .message = "listener \"api\" uses pool \"mastres\", which is not defined (did you mean "
                  "\"masters\"?)"},
      {.description = "duplicate pool",
       .yaml = "pools:\n  - name: masters\n  - name: etcd\n  - name: masters\n",
       .line = 4,
       .message = "duplicate pool name \"masters\" (first defined at vigil.yaml:2)"},
      {.description = "duplicate listener",
       .yaml = "listeners:\n  - {name: a, bind: \":1\", pool: p}\n  - {name: a, bind: \":2\", "
               "pool: p}\n"
               "pools: [{name: p}]\n",
       .line = 3,
       .message = "duplicate listener name \"a\" (first defined at vigil.yaml:2)"},
      {.description = "duplicate member",
       .yaml = "pools:\n- name: p\n  members:\n  - {name: m, address: a, port: 1}\n"
               "  - {name: m, address: b, port: 1}\n",
       .line = 5,
       .message = "duplicate member name \"m\" in pool \"p\" (first defined at vigil.yaml:4)"},
      {.description = "same bind twice",
       .yaml = "listeners:\n  - {name: a, bind: \"127.0.0.1:80\", pool: p}\n"
               "  - {name: b, bind: \":80\", pool: p}\npools: [{name: p}]\n",
       .line = 3,
       .message = "listener \"b\" binds :80, which clashes with listener \"a\" on 127.0.0.1:80 "
                  "(vigil.yaml:2)"},
      {.description = "bind clashes with admin",
       .yaml = "listeners:\n  - {name: a, bind: \":8404\", pool: p}\npools: [{name: p}]\n",
       .line = 2,
       .message = "clashes with admin.listen 127.0.0.1:8404"},
      {.description = "name with a slash",
       .yaml = "pools: [{name: a/b}]\n",
       .line = 1,
       .message = "pool.name \"a/b\" contains '/'"},
      {.description = "name too long",
       .yaml = "pools: [{name: " + std::string(65, 'x') + "}]\n",
       .line = 1,
       .message = "is 65 characters long; the limit is 64"},
      {.description = "missing required keys",
       .yaml = "listeners:\n  - name: a\n",
       .line = 2,
       .message = "missing required key \"bind\" in listener"},
      {.description = "duplicate key",
       .yaml = "pools:\n- name: p\n  retries: 1\n  retries: 2\n",
       .line = 4,
       .message = "duplicate key \"retries\" (first at line 3)"},
  };
  for (const ErrorCase& c : cases) expect_error(c);
}

TEST(Errors, PortZeroListenersMayShareAnAddress) {
  const LoadResult r = load(R"(
listeners:
  - {name: a, bind: "127.0.0.1:0", pool: p}
  - {name: b, bind: "127.0.0.1:0", pool: p}
  - {name: c, bind: "127.0.0.1:81", pool: p}
  - {name: d, bind: "127.0.0.2:81", pool: p}
  - {name: e, bind: "[::1]:82", pool: p}
  - {name: f, bind: "0.0.0.0:82", pool: p}
pools: [{name: p, health_monitor: none}]
)");
  EXPECT_TRUE(r.ok()) << all(r.diagnostics);
}

TEST(Errors, YamlSyntaxAndEmptyFiles) {
  const ErrorCase cases[] = {
      {.description = "unclosed flow",
       .yaml = "pools:\n  - {name: a\n",
       .line = 3,
       .message = "YAML syntax error"},
      {.description = "bad indentation",
       .yaml = "pools:\n  - name: a\n bad: 1\n",
       .line = 3,
       .message = "YAML syntax error"},
      {.description = "tab",
       .yaml = "pools:\n\t- name: a\n",
       .line = 2,
       .message = "YAML syntax error"},
      {.description = "empty", .yaml = "", .line = 0, .message = "empty config"},
      {.description = "only comments",
       .yaml = "# nothing\n\n",
       .line = 0,
       .message = "empty config"},
      {.description = "a scalar",
       .yaml = "hello\n",
       .line = 1,
       .message = "the config: expected a map of keys, got \"hello\""},
      {.description = "a list",
       .yaml = "- a\n",
       .line = 1,
       .message = "expected a map of keys, got a list"},
      {.description = "two documents",
       .yaml = "pools: []\n---\npools: []\n",
       .line = 3,
       .message = "a second YAML document"},
      {.description = "stray comma",
       .yaml = "# c\n,\n",
       .line = 2,
       .message = "YAML syntax error: did not find expected node content; found \",\""},
      {.description = "unquoted IPv6 address in a flow list",
       .yaml = "listeners:\n  - {name: a, bind: \":1\", pool: p,\n     trusted_sources: [::1]}\n",
       .line = 3,
       .message = "quote a value that starts with ':' inside [ ] or { }, like [\"::1\"]"},
      {.description = "not UTF-8",
       .yaml = "# caf\xe9\npools: []\n",
       .line = 1,
       .message = "YAML syntax error: invalid"},
      {.description = "empty first document",
       .yaml = "---\n---\npools: []\n",
       .line = 3,
       .message = "a second YAML document"},
      {.description = "non-scalar key",
       .yaml = "? [a]\n: 1\n",
       .line = 1,
       .message = "a key must be a word, got a list"},
  };
  for (const ErrorCase& c : cases) expect_error(c);
}

TEST(Errors, AllErrorsAreReportedInOnePassInFileOrder) {
  const LoadResult r = load(R"(
listeners:
  - {name: api, bind: ":6443", pool: nowhere}
pools:
  - name: masters
    retries: 99
    health_monitor:
      type: HTTPS
      intervall: 5s
      timeout: soon
    members:
      - {name: m1, address: 10.0.0.1, port: 70000}
      - {name: m1, address: 10.0.0.2, port: 6443, weight: -1}
)");
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(has_error(r, 2, "pool \"nowhere\", which is not defined"));
  EXPECT_TRUE(has_error(r, 5, "pool.retries"));
  EXPECT_TRUE(has_error(r, 8, "unknown key \"intervall\""));
  EXPECT_TRUE(has_error(r, 9, "health_monitor.timeout"));
  EXPECT_TRUE(has_error(r, 11, "member.port"));
  EXPECT_TRUE(has_error(r, 12, "member.weight"));
  EXPECT_TRUE(has_error(r, 12, "duplicate member name \"m1\""));
  EXPECT_EQ(count_errors(r.diagnostics), 7) << all(r.diagnostics);
  for (size_t i = 1; i < r.diagnostics.size(); ++i) {
    EXPECT_LE(r.diagnostics[i - 1].where.line, r.diagnostics[i].where.line) << all(r.diagnostics);
  }
}

TEST(Errors, ToStringShape) {
  const LoadResult r = load(
      "pools:\n  - name: p\n    health_monitor:\n      type: TCP\n"
      "      intervall: 5s\n");
  ASSERT_EQ(r.diagnostics.size(), 2u) << all(r.diagnostics);
  EXPECT_EQ(r.diagnostics[0].to_string(),
            "vigil.yaml:2: warning: pool \"p\" is not used by any listener");
  EXPECT_EQ(r.diagnostics[1].to_string(),
            "vigil.yaml:5: error: unknown key \"intervall\" in health_monitor (did you mean "
            "\"interval\"?)");
}

}  // namespace
}  // namespace vigil::config
