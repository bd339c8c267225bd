// Key tables of health_monitor and its tls map, and the checks that need the whole monitor (keys
// that apply only to some monitor types, fast_interval against interval).
#include <algorithm>

#include "base/ascii.h"
#include "base/duration.h"
#include "config/suggest.h"
#include "config/yaml_keys.h"

namespace vigil::config {
namespace {

using model::MonitorType;
using model::TlsCheck;

// "TCP, TLS-HELLO, HTTP, HTTPS or none"
constexpr model::NameList kTypeChoices = model::name_list<MonitorType>(", ", " or ", "none");

void read_type(YamlReader& r, const Field& f, MonitorDraft& m) {
  auto text = r.scalar(f, kTypeChoices);
  if (!text) return;
  const std::string word = uppercase(*text);
  if (word == "NONE") {
    m.type_none = true;
    return;
  }
  const std::optional<MonitorType> type = model::parse<MonitorType>(word);
  if (!type) {
    return r.error(f.line,
                   f.path() + ": unsupported monitor type " + YamlReader::describe(f.value) +
                       "; use " + std::string(kTypeChoices.view()) +
                       did_you_mean(word, model::names_of(model::spellings<MonitorType>())));
  }
  m.type = *type;
  m.type_known = true;
}

void read_path(YamlReader& r, const Field& f, MonitorDraft& m) {
  std::string path;
  r.set_string(f, path);
  if (path.empty()) return;
  if (path.front() != '/') return r.error(f.line, f.path() + ": must start with '/', like /readyz");
  if (path.find(' ') != std::string::npos) {
    return r.error(f.line, f.path() + ": must not contain spaces (write them as %20)");
  }
  m.path = path;
}

void read_method(YamlReader& r, const Field& f, MonitorDraft& m) {
  // Octavia's list.
  static const std::vector<std::string_view> kMethods = {
      "GET", "HEAD", "POST", "PUT", "DELETE", "TRACE", "OPTIONS", "CONNECT", "PATCH"};
  auto text = r.scalar(f, "an HTTP method");
  if (!text) return;
  const std::string word = uppercase(*text);
  if (std::ranges::find(kMethods, word) == kMethods.end()) {
    return r.error(f.line, f.path() + ": unknown HTTP method " + YamlReader::describe(f.value) +
                               did_you_mean(word, kMethods));
  }
  m.http_method = word;
}

void read_host_header(YamlReader& r, const Field& f, MonitorDraft& m) {
  std::string host;
  r.set_string(f, host);
  if (host.empty()) return;
  if (host.find(' ') != std::string::npos) {
    return r.error(f.line, f.path() + ": must not contain spaces");
  }
  m.host = host;
}

void read_expected_codes(YamlReader& r, const Field& f, MonitorDraft& m) {
  auto text = r.scalar(f, "status codes like \"200\", \"200,202\" or \"200-204\"");
  if (!text) return;
  auto codes = model::ExpectedCodes::parse(*text);
  if (!codes) return r.error(f.line, f.path() + ": " + codes.error().message);
  m.expected_codes = *codes;
}

void read_tls(YamlReader& r, const Field& f, MonitorDraft& m) {
  auto seen = r.read_map(f.value, f.line, tls_section(), m.tls);
  if (!seen) return;
  const auto has = [&](std::string_view key) {
    return std::ranges::any_of(*seen, [&](const auto& s) { return s.spec->name == key; });
  };
  if (has("client_cert") != has("client_key")) {
    r.error(f.line, f.path() + ": client_cert and client_key go together; set both or neither");
  }
  // Naming a CA means "verify against it" unless verify says otherwise.
  if (has("ca_file") && !has("verify")) m.tls.verify = true;
  if (has("ca_file") && has("verify") && !m.tls.verify) {
    r.warning(f.line, f.path() + ": ca_file is not used while verify is false");
  }
}

// "TCP | TLS-HELLO | HTTP | HTTPS | none", for the docs.
constexpr model::NameList kTypeDocs = model::name_list<MonitorType>(" | ", " | ", "none");

constexpr KeySpec<MonitorDraft> kMonitorKeys[] = {
    {"type", kTypeDocs, "",
     "TCP: connect. TLS-HELLO: a full TLS handshake with SNI. HTTP/HTTPS: one request, passing "
     "on an expected status code. none: no monitor, on purpose. Case-insensitive.",
     read_type, true},
    {"path", "string starting with /", "/readyz", "Request path.", read_path, false, kHttpMonitors},
    {"http_method", "GET | HEAD | POST | PUT | DELETE | TRACE | OPTIONS | CONNECT | PATCH", "GET",
     "Request method.", read_method, false, kHttpMonitors},
    {"host", "string", "the member's address", "Host header.", read_host_header, false,
     kHttpMonitors},
    {"expected_codes", "string or integer", "200",
     "Status codes that pass: \"200\", \"200,202\", \"200-204\".", read_expected_codes, false,
     kHttpMonitors},
    {"interval", "duration", "5s", "Time between the starts of two checks of a stable member.",
     [](YamlReader& r, const Field& f, MonitorDraft& m) {
       r.set_duration(f, m.interval, kMaxCheckDuration);
     }},
    {"fast_interval", "duration, at most interval", "1s (interval when interval < 1s)",
     "Time between checks while a member is changing state (after a first result that "
     "disagrees with its status), like HAProxy's fastinter.",
     [](YamlReader& r, const Field& f, MonitorDraft& m) {
       r.set_duration(f, m.fast_interval, kMaxCheckDuration);
     }},
    {"timeout", "duration", "2s",
     "A check that has not passed within this time fails. May exceed interval (as in Octavia): "
     "the next check then waits for the running one.",
     [](YamlReader& r, const Field& f, MonitorDraft& m) {
       r.set_duration(f, m.timeout, kMaxCheckDuration);
     }},
    {"healthy_threshold", "integer 1..10", "2",
     "Consecutive passing checks that bring a member back (HAProxy's rise).",
     [](YamlReader& r, const Field& f, MonitorDraft& m) {
       r.set_int(f, m.healthy_threshold, 1, 10);
     }},
    {"unhealthy_threshold", "integer 1..10", "3",
     "Consecutive failing checks that mark a member down (HAProxy's fall).",
     [](YamlReader& r, const Field& f, MonitorDraft& m) {
       r.set_int(f, m.unhealthy_threshold, 1, 10);
     }},
    {"tls", "map", "", "TLS settings of the check; see `tls`.", read_tls, false, kTlsMonitors},
    {"bearer_token_file", "path", "",
     "File holding a token sent as `Authorization: Bearer` (for clusters with anonymous auth "
     "off).",
     [](YamlReader& r, const Field& f, MonitorDraft& m) { r.set_string(f, m.bearer_token_file); },
     false, kHttpMonitors},
    {"reuse_connection", "bool", "true",
     "A passing check leaves its connection open and the next check sends its request on it, "
     "skipping the TCP and TLS handshakes. A new connection (and a full TLS handshake) is still "
     "made at least every `fresh_connection_every`, after any failing check, and while a member "
     "is out of rotation for a failed connect. false: every check connects afresh, as HAProxy's "
     "do.",
     [](YamlReader& r, const Field& f, MonitorDraft& m) { r.set_bool(f, m.reuse_connection); },
     false, kHttpMonitors},
    {"fresh_connection_every", "duration, 1s..1h", "60s",
     "With `reuse_connection`: how long a kept connection serves before a check connects afresh "
     "(with a full TLS handshake, which verifies the member's certificate again), less up to a "
     "fifth drawn per member so that members do not renew together. Longer spares the members' "
     "handshakes where many load balancers check them: 90s keeps a thousand node-local vigils "
     "under 20 full handshakes a second per API server (docs/performance.md).",
     [](YamlReader& r, const Field& f, MonitorDraft& m) {
       r.set_duration(f, m.fresh_connection_every, std::chrono::hours(1));
       if (m.fresh_connection_every < std::chrono::seconds(1)) {
         r.error(f.line, f.path() + ": must be at least 1s");
       }
     },
     false, kHttpMonitors},
    {"send_proxy", "bool", "false",
     "Every check starts with a PROXY protocol header, as HAProxy's check-send-proxy: v2's "
     "LOCAL command when the member's `proxy_protocol` is v2, else v1's `PROXY UNKNOWN`; the "
     "member takes the check's own addresses. For members that refuse connections without a "
     "header (NGINX `proxy_protocol`, routers with ROUTER_USE_PROXY_PROTOCOL).",
     [](YamlReader& r, const Field& f, MonitorDraft& m) { r.set_bool(f, m.send_proxy); }},
};

constexpr KeySpec<TlsCheck> kTlsKeys[] = {
    {"verify", "bool", "false (true when ca_file is set)",
     "Verify the member's certificate chain and name.",
     [](YamlReader& r, const Field& f, TlsCheck& t) { r.set_bool(f, t.verify); }},
    {"ca_file", "path", "the system's CAs", "CA bundle to verify against.",
     [](YamlReader& r, const Field& f, TlsCheck& t) { r.set_string(f, t.ca_file); }},
    {"server_name", "string", "the member's address", "SNI, and the name verified.",
     [](YamlReader& r, const Field& f, TlsCheck& t) { r.set_string(f, t.server_name); }},
    {"client_cert", "path", "", "Client certificate (PEM); needs client_key.",
     [](YamlReader& r, const Field& f, TlsCheck& t) { r.set_string(f, t.client_cert); }},
    {"client_key", "path", "", "Client private key (PEM); needs client_cert.",
     [](YamlReader& r, const Field& f, TlsCheck& t) { r.set_string(f, t.client_key); }},
};

// Keys that do not apply to the monitor's type are errors at their own line.
void check_keys_apply(YamlReader& r, const MonitorDraft& m,
                      const std::vector<SeenKey<MonitorDraft>>& seen) {
  if (!m.type_known) return;
  for (const SeenKey<MonitorDraft>& s : seen) {
    if (s.spec->only_for != 0 && (s.spec->only_for & monitor_bit(m.type)) == 0) {
      r.error(s.line, "health_monitor." + std::string(s.spec->name) + " applies only to " +
                          monitor_types_text(s.spec->only_for) + " monitors, not " +
                          std::string(model::to_string(m.type)));
    }
  }
}

void check_intervals(YamlReader& r, MonitorDraft& m,
                     const std::vector<SeenKey<MonitorDraft>>& seen) {
  const auto it =
      std::ranges::find_if(seen, [](const auto& s) { return s.spec->name == "fast_interval"; });
  if (it == seen.end()) {
    m.fast_interval = std::min(m.fast_interval, m.interval);
  } else if (m.fast_interval > m.interval) {
    r.error(it->line, "health_monitor.fast_interval (" + format_duration(m.fast_interval) +
                          ") must not be longer than interval (" + format_duration(m.interval) +
                          ")");
  }
}

}  // namespace

std::string monitor_types_text(unsigned mask) {
  std::vector<std::string> names;
  for (const auto& s : model::kMonitorTypeNames) {
    if (mask & monitor_bit(s.value)) names.emplace_back(s.name);
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
    out += names[i];
  }
  return out;
}

const Section<MonitorDraft>& monitor_section() {
  static constexpr Section<MonitorDraft> kSection{"health_monitor", "pools[].health_monitor",
                                                  kMonitorKeys};
  return kSection;
}

const Section<TlsCheck>& tls_section() {
  static constexpr Section<TlsCheck> kSection{"health_monitor.tls", "pools[].health_monitor.tls",
                                              kTlsKeys};
  return kSection;
}

void read_health_monitor(YamlReader& r, const Field& f, PoolDraft& pool) {
  if (f.value.is_null()) return;  // `health_monitor:` with nothing after it: as if absent
  if (f.value.is_scalar()) {
    if (uppercase(f.value.scalar()) == "NONE") {
      pool.monitor_none = true;
      return;
    }
    return r.error(f.line, f.path() + ": expected a map of keys or none, got " +
                               YamlReader::describe(f.value));
  }
  MonitorDraft m;
  m.where = r.at(f.line);
  auto seen = r.read_map(f.value, f.line, monitor_section(), m);
  if (!seen) return;
  if (m.type_none) {
    if (seen->size() > 1) return r.error(f.line, f.path() + ": type none takes no other keys");
    pool.monitor_none = true;
    return;
  }
  check_keys_apply(r, m, *seen);
  check_intervals(r, m, *seen);
  pool.health_monitor = static_cast<model::HealthMonitor&&>(m);
}

}  // namespace vigil::config
