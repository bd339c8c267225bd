// Helpers for config/ tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "config/loader.h"

namespace vigil::config::testing {

// Loads YAML written as a raw string literal; a leading newline is dropped so that the text's
// first line is line 1.
inline LoadResult load(std::string_view text, const std::string& file = "vigil.yaml") {
  if (text.starts_with('\n')) text.remove_prefix(1);
  return load_yaml(text, file);
}

// A listener and its pool, for tests of the keys beside them (process settings, peers).
inline constexpr std::string_view kListenerAndPool = R"(
listeners: [{name: api, bind: "127.0.0.1:6443", pool: masters}]
pools:
  - name: masters
    health_monitor: {type: TCP}
    members: [{name: a, address: 10.0.0.1, port: 6443}]
)";

inline std::string all(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) out += "  " + d.to_string() + "\n";
  return out;
}

// Whether a diagnostic of this severity at `line` contains `text`.
inline bool has(const std::vector<Diagnostic>& diagnostics, Diagnostic::Severity severity, int line,
                std::string_view text) {
  for (const Diagnostic& d : diagnostics) {
    if (d.severity == severity && d.where.line == line &&
        d.message.find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

// What every load must give, whatever the input: a config and its process settings exactly when
// there is no error, and
// diagnostics that each have a message and a line within the text (`text_lines` of it).
inline void expect_coherent(const LoadResult& r, int text_lines, const std::string& label) {
  EXPECT_EQ(r.ok(), r.config.has_value()) << label;
  EXPECT_EQ(r.ok(), r.process.has_value()) << label;
  if (!r.ok()) {
    EXPECT_GT(count_errors(r.diagnostics), 0) << label;
  }
  for (const Diagnostic& d : r.diagnostics) {
    EXPECT_GE(d.where.line, 0) << label << d.to_string();
    EXPECT_LE(d.where.line, text_lines) << label << d.to_string();
    EXPECT_FALSE(d.message.empty()) << label;
  }
}

inline bool has_error(const LoadResult& r, int line, std::string_view text) {
  return has(r.diagnostics, Diagnostic::Severity::kError, line, text);
}

inline bool has_warning(const std::vector<Diagnostic>& diagnostics, int line,
                        std::string_view text) {
  return has(diagnostics, Diagnostic::Severity::kWarning, line, text);
}

// The DESIGN.md 2.2 example, with real paths where it has "...".
inline constexpr std::string_view kDesignExample = R"(
admin:                           # the REST API, /metrics and the status page
  listen: 127.0.0.1:8404         # loopback by default; never 0.0.0.0 unless asked
  token_file: /etc/vigil/token   # required for every mutating call and for the Octavia API
  state_file: /var/lib/vigil/state.json   # objects created through the API live here
listeners:
  - name: api
    bind: ":6443"                # [addr]:port, IPv4 or [IPv6]
    pool: masters
    max_connections: 50000
    idle_timeout: 1h             # watches are long-lived; never a 20 s default
pools:
  - name: masters
    algorithm: round_robin       # round_robin | least_connections | source_ip
    connect_timeout: 1s
    health_monitor:              # omitted => members are NO_MONITOR (as in Octavia), `vigil check` warns
      type: HTTPS                # TCP | TLS-HELLO | HTTP | HTTPS   (none: explicit opt-out)
      path: /readyz
      expected_codes: "200"      # "200", "200,202", "200-204"
      interval: 5s
      timeout: 2s
      healthy_threshold: 2       # consecutive successes to come back
      unhealthy_threshold: 3     # consecutive failures to go down
      tls:
        verify: false            # or ca_file: ..., server_name: ...
        client_cert: /etc/vigil/client.crt   # optional: for clusters with anonymous auth off
        client_key: /etc/vigil/client.key
      bearer_token_file: /etc/vigil/bearer   # optional
    members:
      - {name: master-01, address: master-01.example.local, port: 6443}
      - {name: master-02, address: 192.0.2.12, port: 6443, weight: 1}
      - {name: bootstrap, address: 192.0.2.9, port: 6443, backup: true, enabled: false}
)";

}  // namespace vigil::config::testing
