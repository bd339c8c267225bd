// The health monitor of a pool. HAProxy checks each server with its own settings; vigil has one
// monitor per pool, so the first checked server's settings and the backend's check option decide
// it, and every difference from them is reported.
#include <algorithm>

#include "base/duration.h"
#include "config/haproxy/build.h"

namespace vigil::config::haproxy {
namespace {

using model::MonitorType;
using namespace std::chrono_literals;

// HAProxy's defaults for server checks.
constexpr Duration kHaproxyInter = 2s;
constexpr int kHaproxyRise = 2;
constexpr int kHaproxyFall = 3;
// HAProxy passes an HTTP check on any 2xx or 3xx status unless told otherwise.
constexpr std::string_view kHaproxyExpectedCodes = "200-399";

// The check settings of a server, compared across the servers of a backend.
struct CheckSettings {
  bool tls = false;
  Duration inter{}, fastinter{}, downinter{};
  int rise = 0, fall = 0;
  std::optional<bool> verify;
  std::string ca_file, sni, crt;

  static CheckSettings of(const ServerParams& s) {
    return {.tls = s.check_ssl ? s.check_ssl.value : s.ssl.value,
            .inter = s.inter ? s.inter.value : kHaproxyInter,
            .fastinter = s.fastinter.value,
            .downinter = s.downinter.value,
            .rise = s.rise ? s.rise.value : kHaproxyRise,
            .fall = s.fall ? s.fall.value : kHaproxyFall,
            .verify = s.verify ? std::optional<bool>(s.verify.value) : std::nullopt,
            .ca_file = s.ca_file.value,
            .sni = s.check_sni ? s.check_sni.value : s.verifyhost.value,
            .crt = s.crt.value};
  }

  // "inter 5s vs 10s, rise 2 vs 3"; empty when the same.
  std::string differences(const CheckSettings& o) const {
    std::vector<std::string> out;
    const auto time = [&](std::string_view name, Duration a, Duration b) {
      if (a != b) {
        out.push_back(std::string(name) + " " + (a.count() ? format_duration(a) : "unset") +
                      " vs " + (b.count() ? format_duration(b) : "unset"));
      }
    };
    if (tls != o.tls) out.push_back(tls ? "TLS vs plain" : "plain vs TLS");
    time("inter", inter, o.inter);
    time("fastinter", fastinter, o.fastinter);
    time("downinter", downinter, o.downinter);
    if (rise != o.rise)
      out.push_back("rise " + std::to_string(rise) + " vs " + std::to_string(o.rise));
    if (fall != o.fall)
      out.push_back("fall " + std::to_string(fall) + " vs " + std::to_string(o.fall));
    if (verify != o.verify) out.push_back("verify");
    if (ca_file != o.ca_file) out.push_back("ca-file");
    if (sni != o.sni) out.push_back("check-sni");
    if (crt != o.crt) out.push_back("crt");
    std::string text;
    for (const std::string& s : out) text += (text.empty() ? "" : ", ") + s;
    return text;
  }
};

void set_tls(Parser& p, const ProxyDraft& b, const ServerDraft& first, const CheckConnect* connect,
             model::HealthMonitor& m) {
  const ServerParams& sp = first.params;
  const bool verify = sp.verify ? sp.verify.value : !p.draft().global.verify_none.value;
  const std::string ca_file = sp.ca_file.value == "@system-ca" ? "" : sp.ca_file.value;
  m.tls.verify = verify;
  if (verify) {
    m.tls.ca_file = ca_file;
    if (!sp.ca_file) {
      p.warning_once(first.line,
                     "server " + quote(first.name) + " of " + kind_and_name(b) +
                         " checks over TLS with verify required (HAProxy's default) and no "
                         "ca-file, which HAProxy refuses; vigil verifies against the system's "
                         "CAs (add `verify none` to skip verification)");
    }
  } else if (!ca_file.empty()) {
    p.warning_once(sp.ca_file.line,
                   "ignored: `ca-file " + sp.ca_file.value + "`: not used with verify none");
  }
  if (connect != nullptr && connect->sni) {
    m.tls.server_name = connect->sni.value;
  } else if (sp.check_sni) {
    m.tls.server_name = sp.check_sni.value;
  } else if (sp.verifyhost && !sp.verifyhost.value.empty()) {
    m.tls.server_name = sp.verifyhost.value;
  }
  if (sp.crt) {
    m.tls.client_cert = sp.crt.value;
    m.tls.client_key = sp.crt.value;
  }
}

// http-check rules without option httpchk, tcp-check rules without option tcp-check.
void warn_unused_rules(Parser& p, const ProxyDraft& b) {
  const CheckOption& option = b.check;
  const std::string check = option.line > 0
                                ? "`" + option.text + "` (line " + std::to_string(option.line) + ")"
                                : "a connect (no check option)";
  if (b.http_check.first_line > 0 && option.kind != CheckKind::kHttp) {
    p.warning_once(b.http_check.first_line, "ignored: http-check rules: the check of " +
                                                kind_and_name(b) + " is " + check +
                                                ", not option httpchk");
  }
  if (b.tcp_check.first_line > 0 && option.kind != CheckKind::kTcpCheck) {
    p.warning_once(b.tcp_check.first_line, "ignored: tcp-check rules: the check of " +
                                               kind_and_name(b) + " is " + check +
                                               ", not option tcp-check");
  }
}

}  // namespace

std::optional<model::HealthMonitor> build_monitor(Parser& p, const ProxyDraft& b,
                                                  model::Pool& pool) {
  std::vector<const ServerDraft*> checked;
  for (const ServerDraft& s : b.servers) {
    if (s.params.check.value) checked.push_back(&s);
  }
  const CheckOption& option = b.check;
  if (checked.empty()) {
    if (option.line > b.line) {
      p.warning(option.line, "`" + option.text + "` has no effect: no server of " +
                                 kind_and_name(b) +
                                 " has `check`, so, as in HAProxy, its members are not "
                                 "checked (NO_MONITOR)");
    }
    return std::nullopt;
  }
  const ServerDraft& first = *checked.front();
  const ServerParams& sp = first.params;
  const CheckSettings settings = CheckSettings::of(sp);
  for (const ServerDraft& s : b.servers) {
    if (&s == &first) continue;
    if (!s.params.check.value) {
      p.warning(s.line, "server " + quote(s.name) +
                            " has no `check`: HAProxy never marks it down; vigil checks every "
                            "member of a pool with the pool's monitor");
      continue;
    }
    const std::string differences = CheckSettings::of(s.params).differences(settings);
    if (!differences.empty()) {
      p.warning(s.line, "server " + quote(s.name) + "'s check settings differ from server " +
                            quote(first.name) + "'s (line " + std::to_string(first.line) +
                            "): " + differences + "; vigil has one monitor per pool and uses " +
                            quote(first.name) + "'s");
    }
  }

  const CheckConnect* connect = nullptr;
  if (option.kind == CheckKind::kHttp) connect = &b.http_check.connect;
  if (option.kind == CheckKind::kTcpCheck) connect = &b.tcp_check.connect;
  warn_unused_rules(p, b);
  bool tls = settings.tls || (connect != nullptr && connect->ssl.value);

  model::HealthMonitor m;
  m.where = {
      .file = p.file(),
      .line = option.line > 0 && option.kind != CheckKind::kConnect ? option.line : first.line};
  switch (option.kind) {
    case CheckKind::kHttp:
      m.type = tls ? MonitorType::kHttps : MonitorType::kHttp;
      break;
    case CheckKind::kSslHello:
      m.type = MonitorType::kTlsHello;
      tls = false;  // HAProxy's hello is not verified; vigil's handshake is not either
      break;
    case CheckKind::kOther:
      p.warning_once(
          option.line,
          "`" + option.text + "`: vigil cannot run this check; " + "the servers get a " +
              std::string(model::to_string(tls ? MonitorType::kTlsHello : MonitorType::kTcp)) +
              " check");
      [[fallthrough]];
    case CheckKind::kConnect:
    case CheckKind::kTcpCheck:
      m.type = tls ? MonitorType::kTlsHello : MonitorType::kTcp;
      break;
  }

  m.interval = settings.inter;
  m.fast_interval = sp.fastinter ? sp.fastinter.value : m.interval;
  if (m.fast_interval > m.interval) {
    p.warning_once(sp.fastinter.line,
                   "`fastinter " + format_duration(m.fast_interval) +
                       "` is longer than inter: vigil's fast_interval is at most the interval; "
                       "using " +
                       format_duration(m.interval));
    m.fast_interval = m.interval;
  }
  if (sp.downinter && sp.downinter.value != m.interval) {
    p.warning_once(sp.downinter.line, "ignored: `downinter " + format_duration(sp.downinter.value) +
                                          "`: vigil checks a down member every interval (" +
                                          format_duration(m.interval) + ")");
  }
  // HAProxy gives a check `inter` to complete; with `timeout check`, it limits the connect to
  // min(timeout connect, inter) and then waits `timeout check` for the answer. A connect-only
  // check has no answer to wait for.
  if (!b.timeout_check) {
    m.timeout = m.interval;
  } else if (m.type == MonitorType::kTcp) {
    m.timeout = std::min(b.timeout_connect ? b.timeout_connect.value : m.interval, m.interval);
  } else {
    m.timeout = b.timeout_check.value;
  }
  m.healthy_threshold = settings.rise;
  m.unhealthy_threshold = settings.fall;

  if (model::uses_http(m.type)) {
    const HttpCheckRules& r = b.http_check;
    m.http_method = r.method ? r.method.value : option.method ? option.method.value : "OPTIONS";
    m.path = r.uri ? r.uri.value : option.uri ? option.uri.value : "/";
    m.host = r.host ? r.host.value : option.host.value;
    m.expected_codes = *model::ExpectedCodes::parse(
        r.expect_status ? std::string_view(r.expect_status.value) : kHaproxyExpectedCodes);
  }
  if (tls) set_tls(p, b, first, connect, m);
  if (connect != nullptr) {
    for (model::Member& member : pool.members) {
      if (connect->port && member.monitor_port == 0) {
        member.monitor_port = static_cast<uint16_t>(connect->port.value);
      }
      if (connect->addr && member.monitor_address.empty()) {
        member.monitor_address = connect->addr.value;
      }
    }
  }
  return m;
}

}  // namespace vigil::config::haproxy
