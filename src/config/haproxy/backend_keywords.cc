// What a backend (or listen) says about its servers: how connections are spread over them, and
// its server and default-server lines with their parameters.
#include "base/ascii.h"
#include "base/duration.h"
#include "config/address.h"
#include "config/haproxy/handlers.h"
#include "config/haproxy/values.h"
#include "config/haproxy_names.h"

namespace vigil::config::haproxy {
namespace {

using model::Algorithm;
using SP = ServerParams;

template <auto Member>
void set_true(Parser&, const ParamUse& u, SP& s) {
  (s.*Member).set(true, u.line);
}
template <auto Member>
void set_false(Parser&, const ParamUse& u, SP& s) {
  (s.*Member).set(false, u.line);
}

template <auto Member>
void set_check_duration(Parser& p, const ParamUse& u, SP& s) {
  auto d = p.duration(u.line, u.name, u.values[0]);
  if (!d) return;
  if (*d <= Duration::zero() || *d > kMaxCheck) {
    return p.error(u.line, "`" + u.text() + "`: must be greater than 0 and at most " +
                               format_duration(kMaxCheck));
  }
  (s.*Member).set(*d, u.line);
}

template <auto Member>
void set_threshold(Parser& p, const ParamUse& u, SP& s) {
  auto n = p.integer(u.line, u.name, u.values[0], 1, 1'000'000);
  if (!n) return;
  if (*n > 10) {
    p.warning(u.line, "`" + u.text() + "`: vigil counts at most 10 consecutive checks; using 10");
    n = 10;
  }
  (s.*Member).set(*n, u.line);
}

template <model::ProxyProtocol Version>
void set_send_proxy(Parser&, const ParamUse& u, SP& s) {
  s.send_proxy.set(Version, u.line);
}

void server_send_proxy_v2_ssl(Parser& p, const ParamUse& u, SP& s) {
  p.warning(u.line, "`" + u.text() +
                        "`: vigil sends PROXY v2 without the SSL TLVs (it does not terminate TLS)");
  s.send_proxy.set(model::ProxyProtocol::kV2, u.line);
}

void server_verify(Parser& p, const ParamUse& u, SP& s) {
  const std::string word = lowercase(u.values[0]);
  if (word == "none") {
    s.verify.set(false, u.line);
  } else if (word == "required") {
    s.verify.set(true, u.line);
  } else {
    p.error(u.line, "verify must be none or required, not \"" + shown(u.values[0]) + "\"");
  }
}

void server_slowstart(Parser& p, const ParamUse& u, SP& s) {
  auto d = p.duration(u.line, u.name, u.values[0]);
  if (!d) return;
  if (*d < Duration::zero() || *d > kMaxCheck) {
    return p.error(u.line, "`" + u.text() + "`: must be at most " + format_duration(kMaxCheck));
  }
  s.slowstart.set(*d, u.line);
}

void server_weight(Parser& p, const ParamUse& u, SP& s) {
  if (auto n = p.integer(u.line, "weight", u.values[0], 0, 256)) s.weight.set(*n, u.line);
}

void server_port(Parser& p, const ParamUse& u, SP& s) {
  if (auto n = p.integer(u.line, "port", u.values[0], 1, 65535)) s.port.set(*n, u.line);
}

void server_addr(Parser& p, const ParamUse& u, SP& s) {
  auto host = parse_host(u.values[0]);
  if (!host) return p.error(u.line, "addr: " + host.error().message);
  s.addr.set(*host, u.line);
}

void server_ca_file(Parser& p, const ParamUse& u, SP& s) {
  s.ca_file.set(p.ca_path(u.values[0]), u.line);
}
void server_crt(Parser& p, const ParamUse& u, SP& s) { s.crt.set(p.crt_path(u.values[0]), u.line); }
void server_check_sni(Parser&, const ParamUse& u, SP& s) { s.check_sni.set(u.values[0], u.line); }
void server_verifyhost(Parser&, const ParamUse& u, SP& s) { s.verifyhost.set(u.values[0], u.line); }
void server_no_verifyhost(Parser&, const ParamUse& u, SP& s) { s.verifyhost.set("", u.line); }

void server_on_marked_down(Parser& p, const ParamUse& u, SP&) {
  if (u.values[0] != "shutdown-sessions") {
    p.warning(u.line, "ignored: `" + u.text() +
                          "`: vigil closes a dead member's sessions (shutdown_sessions_on_down)");
  }
}

constexpr std::string_view kSslTraffic =
    "re-encrypting traffic to the server is not supported: vigil forwards the client's bytes "
    "unchanged (checks of this server still use TLS, as in HAProxy)";
constexpr std::string_view kSslTrafficOnly =
    "applies to re-encrypted traffic (`ssl`), which vigil does not do; for checks use check-sni";
constexpr std::string_view kAgent = "vigil has no agent checks";
constexpr std::string_view kProxyProtocol =
    "vigil sends the PROXY header with the client's and the listener's addresses only";
constexpr std::string_view kPassive =
    "vigil's passive health: a refused or timed-out connect takes the member out at once and "
    "triggers a check";
constexpr std::string_view kResolve =
    "vigil resolves host names with the system resolver when the config is loaded";
constexpr std::string_view kTlsVersions = "vigil's TLS checks use TLS 1.2 and 1.3";

constexpr ParamKeyword<SP> kServerKeywords[] = {
    {"check", 0, kMapped,
     "Checks the server. A backend with no checked server has no monitor (NO_MONITOR), as in "
     "HAProxy.",
     set_true<&SP::check>},
    {"no-check", 0, kMapped, "Undoes `check`.", set_false<&SP::check>},
    {"check-ssl", 0, kMapped, "Checks over TLS: HTTPS with `option httpchk`, else TLS-HELLO.",
     set_true<&SP::check_ssl>},
    {"no-check-ssl", 0, kMapped, "Undoes `check-ssl`.", set_false<&SP::check_ssl>},
    {"ssl", 0, kIgnored, kSslTraffic, set_true<&SP::ssl>},
    {"no-ssl", 0, kMapped, "Undoes `ssl`.", set_false<&SP::ssl>},
    {"verify", 1, kMapped,
     "`tls.verify`: none -> false, required -> true (HAProxy's default, see ssl-server-verify).",
     server_verify},
    {"ca-file", 1, kMapped, "`tls.ca_file` (@system-ca: the system's CAs).", server_ca_file},
    {"crt", 1, kMapped,
     "`tls.client_cert` and `tls.client_key` (HAProxy's PEM holds both) for TLS checks.",
     server_crt},
    {"check-sni", 1, kMapped, "`tls.server_name`.", server_check_sni},
    {"verifyhost", 1, kMapped, "`tls.server_name` when check-sni is not given.", server_verifyhost},
    {"no-verifyhost", 0, kMapped, "Undoes `verifyhost`.", server_no_verifyhost},
    {"inter", 1, kMapped, "The monitor's `interval` (HAProxy's default 2s).",
     set_check_duration<&SP::inter>},
    {"fastinter", 1, kMapped,
     "The monitor's `fast_interval` (HAProxy's default: inter; at most interval).",
     set_check_duration<&SP::fastinter>},
    {"downinter", 1, kMapped,
     "No equivalent (vigil checks a down member every interval): a warning unless equal to "
     "inter.",
     set_check_duration<&SP::downinter>},
    {"rise", 1, kMapped, "The monitor's `healthy_threshold` (default 2, at most 10).",
     set_threshold<&SP::rise>},
    {"fall", 1, kMapped, "The monitor's `unhealthy_threshold` (default 3, at most 10).",
     set_threshold<&SP::fall>},
    {"weight", 1, kMapped, "The member's `weight` (0-256).", server_weight},
    {"backup", 0, kMapped, "The member's `backup`.", set_true<&SP::backup>},
    {"no-backup", 0, kMapped, "Undoes `backup`.", set_false<&SP::backup>},
    {"disabled", 0, kMapped, "The member's `enabled: false`.", set_true<&SP::disabled>},
    {"enabled", 0, kMapped, "Undoes `disabled`.", set_false<&SP::disabled>},
    {"port", 1, kMapped, "The member's `monitor_port`.", server_port},
    {"addr", 1, kMapped, "The member's `monitor_address`.", server_addr},
    {"on-marked-down", 1, kAccepted,
     "shutdown-sessions is what vigil does by default (shutdown_sessions_on_down); other values "
     "are a warning",
     server_on_marked_down},
    {"maxconn", 1, kIgnored, "vigil has no per-server connection limits"},
    {"maxqueue", 1, kIgnored, "vigil has no queue: a connection goes to a member at once"},
    {"minconn", 1, kIgnored, "vigil has no per-server connection limits"},
    {"slowstart", 1, kMapped,
     "The pool's `slow_start` (0 disables). vigil has one per pool: when the servers of a backend "
     "differ, it takes the longest, with a warning at each server that differs.",
     server_slowstart},
    {"sni", 1, kIgnored, kSslTrafficOnly},
    {"alpn", 1, kIgnored, kSslTrafficOnly},
    {"npn", 1, kIgnored, kSslTrafficOnly},
    {"check-alpn", 1, kIgnored, "vigil's checks do not negotiate ALPN"},
    {"check-proto", 1, kIgnored, "vigil's HTTP checks use HTTP/1.1"},
    {"proto", 1, kIgnored, kSslTrafficOnly},
    {"ciphers", 1, kIgnored, kTlsVersions},
    {"ciphersuites", 1, kIgnored, kTlsVersions},
    {"curves", 1, kIgnored, kTlsVersions},
    {"sigalgs", 1, kIgnored, kTlsVersions},
    {"client-sigalgs", 1, kIgnored, kTlsVersions},
    {"ssl-min-ver", 1, kIgnored, kTlsVersions},
    {"ssl-max-ver", 1, kIgnored, kTlsVersions},
    {"force-sslv3", 0, kIgnored, kTlsVersions},
    {"force-tlsv10", 0, kIgnored, kTlsVersions},
    {"force-tlsv11", 0, kIgnored, kTlsVersions},
    {"force-tlsv12", 0, kIgnored, kTlsVersions},
    {"force-tlsv13", 0, kIgnored, kTlsVersions},
    {"no-sslv3", 0, kIgnored, kTlsVersions},
    {"no-tlsv10", 0, kIgnored, kTlsVersions},
    {"no-tlsv11", 0, kIgnored, kTlsVersions},
    {"no-tlsv12", 0, kIgnored, kTlsVersions},
    {"no-tlsv13", 0, kIgnored, kTlsVersions},
    {"no-tls-tickets", 0, kIgnored, kTlsVersions},
    {"tls-tickets", 0, kIgnored, kTlsVersions},
    {"crl-file", 1, kIgnored, "vigil's TLS checks do not read CRLs"},
    {"ssl-reuse", 0, kIgnored, kTlsVersions},
    {"no-ssl-reuse", 0, kIgnored, kTlsVersions},
    {"allow-0rtt", 0, kIgnored, kTlsVersions},
    {"send-proxy", 0, kMapped,
     "The member's `proxy_protocol: v1`; its checks send one too unless it has `port` or `addr` "
     "(as in HAProxy).",
     set_send_proxy<model::ProxyProtocol::kV1>},
    {"send-proxy-v2", 0, kMapped,
     "The member's `proxy_protocol: v2`; its checks send one too unless it has `port` or `addr` "
     "(as in HAProxy).",
     set_send_proxy<model::ProxyProtocol::kV2>},
    {"send-proxy-v2-ssl", 0, kMapped, "As send-proxy-v2, with a warning: no SSL TLVs.",
     server_send_proxy_v2_ssl},
    {"send-proxy-v2-ssl-cn", 0, kMapped, "As send-proxy-v2, with a warning: no SSL TLVs.",
     server_send_proxy_v2_ssl},
    {"proxy-v2-options", 1, kIgnored, kProxyProtocol},
    {"set-proxy-v2-tlv-fmt*", 1, kIgnored, kProxyProtocol},
    {"no-send-proxy", 0, kMapped, "Undoes `send-proxy` (the member's `proxy_protocol: off`).",
     set_send_proxy<model::ProxyProtocol::kOff>},
    {"no-send-proxy-v2", 0, kMapped, "Undoes `send-proxy-v2` (`proxy_protocol: off`).",
     set_send_proxy<model::ProxyProtocol::kOff>},
    {"check-send-proxy", 0, kMapped,
     "The monitor's `send_proxy: true`. vigil has one monitor per pool: when some checked "
     "servers send it and others do not, every check sends it, with a warning at each server "
     "that differs.",
     set_true<&SP::check_send_proxy>},
    {"agent-check", 0, kIgnored, kAgent},
    {"no-agent-check", 0, kAccepted, kAgent},
    {"agent-addr", 1, kIgnored, kAgent},
    {"agent-port", 1, kIgnored, kAgent},
    {"agent-inter", 1, kIgnored, kAgent},
    {"agent-send", 1, kIgnored, kAgent},
    {"observe", 1, kIgnored, kPassive},
    {"on-error", 1, kIgnored, kPassive},
    {"error-limit", 1, kIgnored, kPassive},
    {"on-marked-up", 1, kIgnored, "vigil does not close backup sessions when a member comes back"},
    {"track", 1, kIgnored, "vigil checks each member itself; this server gets the pool's monitor"},
    {"cookie", 1, kIgnored, kHttpOnly},
    {"redir", 1, kIgnored, kHttpOnly},
    {"id", 1, kIgnored, "vigil derives ids from names"},
    {"guid", 1, kIgnored, "vigil derives ids from names"},
    {"resolvers", 1, kIgnored, kResolve},
    {"resolve-prefer", 1, kIgnored, kResolve},
    {"resolve-net", 1, kIgnored, kResolve},
    {"resolve-opts", 1, kIgnored, kResolve},
    {"init-addr", 1, kIgnored, kResolve},
    {"source", 1, kIgnored, "vigil connects from the address the kernel picks"},
    {"usesrc", 1, kIgnored, "vigil connects from the address the kernel picks"},
    {"interface", 1, kIgnored, "vigil connects from the address the kernel picks"},
    {"namespace", 1, kIgnored, "vigil connects in its own network namespace"},
    {"socks4", 1, kIgnored, "vigil connects directly"},
    {"check-via-socks4", 0, kIgnored, "vigil connects directly"},
    {"tfo", 0, kIgnored, kTuning},
    {"no-tfo", 0, kAccepted, kTuning},
    {"tcp-ut", 1, kIgnored, "set by the pool's dead_peer_timeout"},
    {"pool-low-conn", 1, kIgnored, kHttpOnly},
    {"pool-max-conn", 1, kIgnored, kHttpOnly},
    {"pool-purge-delay", 1, kIgnored, kHttpOnly},
    {"pool-conn-name", 1, kIgnored, kHttpOnly},
    {"max-reuse", 1, kIgnored, kHttpOnly},
    {"ws", 1, kIgnored, kHttpOnly},
    {"log-proto", 1, kIgnored, kLogging},
    {"log-bufsize", 1, kIgnored, kLogging},
    {"shard", 1, kIgnored, "vigil has no peers"},
    {"hash-key", 1, kIgnored, "vigil's source_ip hashing is its own"},
    {"non-stick", 0, kIgnored, "vigil's session_persistence keeps the clients of every member"},
    {"stick", 0, kAccepted, "vigil's session_persistence keeps the clients of every member"},
    {"strict-maxconn", 0, kIgnored, "vigil has no per-server connection limits"},
    {"idle-ping", 1, kIgnored, kHttpOnly},
};

}  // namespace

std::span<const ParamKeyword<ServerParams>> server_keywords() { return kServerKeywords; }

void proxy_balance(Parser& p, const Directive& d, ProxyDraft& x) {
  if (!needs_args(p, d, 1, "an algorithm")) return;
  const std::string word = lowercase(d.arg(0));
  if (auto algorithm = model::value_in<Algorithm>(kHaproxyAlgorithmNames, word)) {
    x.balance.set(*algorithm, d.line());
  } else if (word == "static-rr") {
    x.balance.set(Algorithm::kRoundRobin, d.line());
    p.warning(d.line(),
              "`balance static-rr` becomes round_robin: vigil's round robin is weighted like "
              "static-rr, and weights cannot change at run time from haproxy.cfg anyway");
  } else {
    x.balance.set(Algorithm::kRoundRobin, d.line());
    p.warning(d.line(), "`balance " + shown(d.arg(0)) +
                            "` is not supported: vigil uses round_robin (it has " +
                            std::string(model::name_list<Algorithm>(", ", " and ").view()) + ")");
    return;
  }
  extra_args(p, d, 1);
}

void proxy_server(Parser& p, const Directive& d, ProxyDraft& x) {
  if (!needs_args(p, d, 2, "a name and an address, like `server master-01 10.0.0.11:6443 check`")) {
    return;
  }
  auto target = parse_server_target(d.arg(1));
  ServerParams own;
  parse_params(p, d.line(), d.args().subspan(2), server_keywords(), "server", own);
  if (!target)
    return p.error(d.line(), "server " + shown(d.arg(0)) + ": " + target.error().message);
  ServerDraft s{.line = d.line(),
                .name = std::string(d.arg(0)),
                .host = target->host,
                .port = target->port,
                .params = x.default_server};
  s.params.overlay(own);
  x.servers.push_back(std::move(s));
}

void proxy_default_server(Parser& p, const Directive& d, ProxyDraft& x) {
  ServerParams own;
  parse_params(p, d.line(), d.args(), server_keywords(), "default-server", own);
  x.default_server.overlay(own);
}

}  // namespace vigil::config::haproxy
