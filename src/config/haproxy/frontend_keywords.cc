// What a frontend (or listen) says: where it listens, with the parameters of its bind lines, and
// which backend its connections go to.
#include "config/haproxy/handlers.h"
#include "config/haproxy/values.h"

namespace vigil::config::haproxy {
namespace {

void bind_ssl(Parser&, const ParamUse& u, BindDraft& b) { b.ssl.set(true, u.line); }

void bind_transparent(Parser&, const ParamUse& u, BindDraft& b) { b.transparent.set(true, u.line); }

void bind_maxconn(Parser& p, const ParamUse& u, BindDraft& b) {
  if (auto n = p.integer(u.line, "maxconn", u.values[0], 1, 10'000'000)) b.maxconn.set(*n, u.line);
}

constexpr std::string_view kTermination =
    "TLS termination is not supported: vigil passes TLS through to the servers";

constexpr ParamKeyword<BindDraft> kBindKeywords[] = {
    {"maxconn", 1, kMapped, "The listener's `max_connections`.", bind_maxconn},
    {"ssl", 0, kRefused, kTermination, bind_ssl},
    {"crt", 1, kIgnored, kBindTls},
    {"crt-list", 1, kIgnored, kBindTls},
    {"ca-file", 1, kIgnored, kBindTls},
    {"ca-verify-file", 1, kIgnored, kBindTls},
    {"ca-ignore-err", 1, kIgnored, kBindTls},
    {"crt-ignore-err", 1, kIgnored, kBindTls},
    {"ca-sign-file", 1, kIgnored, kBindTls},
    {"ca-sign-pass", 1, kIgnored, kBindTls},
    {"crl-file", 1, kIgnored, kBindTls},
    {"verify", 1, kIgnored, kBindTls},
    {"alpn", 1, kIgnored, kBindTls},
    {"npn", 1, kIgnored, kBindTls},
    {"ciphers", 1, kIgnored, kBindTls},
    {"ciphersuites", 1, kIgnored, kBindTls},
    {"curves", 1, kIgnored, kBindTls},
    {"ecdhe", 1, kIgnored, kBindTls},
    {"sigalgs", 1, kIgnored, kBindTls},
    {"client-sigalgs", 1, kIgnored, kBindTls},
    {"ssl-min-ver", 1, kIgnored, kBindTls},
    {"ssl-max-ver", 1, kIgnored, kBindTls},
    {"tls-ticket-keys", 1, kIgnored, kBindTls},
    {"strict-sni", 0, kIgnored, kBindTls},
    {"generate-certificates", 0, kIgnored, kBindTls},
    {"prefer-client-ciphers", 0, kIgnored, kBindTls},
    {"no-ca-names", 0, kIgnored, kBindTls},
    {"no-sslv3", 0, kIgnored, kBindTls},
    {"no-tlsv10", 0, kIgnored, kBindTls},
    {"no-tlsv11", 0, kIgnored, kBindTls},
    {"no-tlsv12", 0, kIgnored, kBindTls},
    {"no-tlsv13", 0, kIgnored, kBindTls},
    {"no-tls-tickets", 0, kIgnored, kBindTls},
    {"force-sslv3", 0, kIgnored, kBindTls},
    {"force-tlsv10", 0, kIgnored, kBindTls},
    {"force-tlsv11", 0, kIgnored, kBindTls},
    {"force-tlsv12", 0, kIgnored, kBindTls},
    {"force-tlsv13", 0, kIgnored, kBindTls},
    {"allow-0rtt", 0, kIgnored, kBindTls},
    {"ktls", 1, kIgnored, kBindTls},
    {"accept-proxy", 0, kIgnored,
     "HAProxy believes a header from anyone; vigil's `accept_proxy` needs `trusted_sources`, "
     "which haproxy.cfg cannot say, so the header would reach the servers as data: convert the "
     "config and set both in the YAML"},
    {"accept-netscaler-cip", 1, kIgnored,
     "vigil does not read NetScaler headers: they would reach the servers as data"},
    {"transparent", 0, kMapped,
     "The listener's `freebind`: bind the address before this host holds it (a keepalived "
     "standby).",
     bind_transparent},
    {"v4v6", 0, kIgnored, "vigil binds the address as written"},
    {"v6only", 0, kIgnored, "vigil binds the address as written"},
    {"interface", 1, kIgnored, "vigil binds the address on every interface that has it"},
    {"namespace", 1, kIgnored, "vigil binds in its own network namespace"},
    {"defer-accept", 0, kIgnored, kTuning},
    {"tfo", 0, kIgnored, kTuning},
    {"mss", 1, kIgnored, kTuning},
    {"backlog", 1, kIgnored, kTuning},
    {"tcp-ut", 1, kIgnored, "set by the listener's dead_peer_timeout"},
    {"tcp-md5sig", 1, kIgnored, kTuning},
    {"nice", 1, kIgnored, kTuning},
    {"shards", 1, kIgnored, "vigil runs one worker thread per core, each with its own socket"},
    {"thread", 1, kIgnored, "vigil runs one worker thread per core, each with its own socket"},
    {"process", 1, kIgnored, "vigil runs one worker thread per core, each with its own socket"},
    {"name", 1, kIgnored, "vigil names listeners after the frontend"},
    {"id", 1, kIgnored, "vigil derives ids from names"},
    {"guid-prefix", 1, kIgnored, "vigil derives ids from names"},
    {"label", 1, kIgnored, "vigil names listeners after the frontend"},
    {"proto", 1, kIgnored, kHttpOnly},
    {"level", 1, kIgnored, "applies to HAProxy's stats socket"},
    {"severity-output", 1, kIgnored, "applies to HAProxy's stats socket"},
    {"expose-fd", 1, kIgnored, "applies to HAProxy's stats socket"},
    {"mode", 1, kIgnored, "applies to UNIX sockets"},
    {"user", 1, kIgnored, "applies to UNIX sockets"},
    {"group", 1, kIgnored, "applies to UNIX sockets"},
    {"uid", 1, kIgnored, "applies to UNIX sockets"},
    {"gid", 1, kIgnored, "applies to UNIX sockets"},
    {"quic-*", 1, kIgnored, "vigil proxies TCP"},
    {"idle-ping", 1, kIgnored, kHttpOnly},
};

}  // namespace

std::span<const ParamKeyword<BindDraft>> bind_keywords() { return kBindKeywords; }

void proxy_bind(Parser& p, const Directive& d, ProxyDraft& x) {
  if (!needs_args(p, d, 1, "an address, like *:6443")) return;
  auto targets = parse_bind_targets(d.arg(0));
  BindDraft options{.line = d.line()};
  parse_params(p, d.line(), d.args().subspan(1), bind_keywords(), "bind", options);
  if (!targets) return p.error(d.line(), "bind: " + targets.error().message);
  for (const BindTarget& t : *targets) {
    BindDraft b = options;
    b.address = t.address;
    b.port = t.port;
    x.binds.push_back(std::move(b));
  }
}

void proxy_default_backend(Parser& p, const Directive& d, ProxyDraft& x) {
  if (!needs_args(p, d, 1, "a backend name")) return;
  x.default_backend.set(std::string(d.arg(0)), d.line());
  extra_args(p, d, 1);
}

void proxy_use_backend(Parser& p, const Directive& d, ProxyDraft& x) {
  if (!needs_args(p, d, 1, "a backend name")) return;
  x.use_backends.push_back({.value = std::string(d.arg(0)), .line = d.line()});
}

}  // namespace vigil::config::haproxy
