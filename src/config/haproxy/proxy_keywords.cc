// The directives of defaults, frontend, backend and listen sections. They stay in one table, in
// this order, because the parser looks them up in it and docs/haproxy.md lists them from it. The
// handlers of one concern live with it (haproxy/frontend_keywords.cc, haproxy/backend_keywords.cc,
// haproxy/check_keywords.cc); those here apply to any proxy: its mode, timeouts, limits, and
// whether it is enabled.
#include <algorithm>

#include "base/ascii.h"
#include "base/duration.h"
#include "config/haproxy/handlers.h"

namespace vigil::config::haproxy {
namespace {

constexpr unsigned D = kDefaults;
constexpr unsigned F = kFrontend;
constexpr unsigned B = kBackend;
constexpr unsigned L = kListen;
constexpr unsigned kAllProxies = D | F | B | L;

constexpr std::string_view kNoAcls =
    "vigil does not evaluate ACLs or inspect connections: every connection is accepted and "
    "forwarded (filter at the firewall)";
constexpr std::string_view kNoCheckData =
    "vigil's checks cannot send or expect data over TCP; the servers get a connect check (a TLS "
    "handshake with `ssl`/`check-ssl`)";

void proxy_mode(Parser& p, const Directive& d, ProxyDraft& x) {
  if (!needs_args(p, d, 1, "tcp or http")) return;
  const std::string word = lowercase(d.arg(0));
  if (word != "tcp" && word != "http") {
    return p.error(d.line(),
                   "unknown mode \"" + shown(d.arg(0)) + "\"; vigil proxies TCP (mode tcp)");
  }
  x.mode.set(word, d.line());
  extra_args(p, d, 1);
}

void proxy_timeout(Parser& p, const Directive& d, Lined<Duration>& out, Duration max) {
  if (!needs_args(p, d, 1, "a time, like 5s")) return;
  auto value = p.duration(d.line(), d.keyword(), d.arg(0));
  if (!value) return;
  if (*value <= Duration::zero()) {
    return p.error(d.line(), "`" + d.keyword() + "` must be greater than 0");
  }
  if (*value > max) {
    return p.error(d.line(), "`" + d.keyword() + " " + shown(d.arg(0)) +
                                 "` is too long for vigil; the limit is " + format_duration(max));
  }
  out.set(*value, d.line());
  extra_args(p, d, 1);
}

// Sets the number in `out`, lowered to `high` with a warning when larger.
void bounded_int(Parser& p, const Directive& d, Lined<int>& out, int low, int high,
                 std::string_view why) {
  if (!needs_args(p, d, 1, "a number")) return;
  auto n = p.integer(d.line(), d.keyword(), d.arg(0), low, 1'000'000'000);
  if (!n) return;
  if (*n > high) {
    p.warning(d.line(),
              "`" + d.text() + "`: " + std::string(why) + "; using " + std::to_string(high));
    n = high;
  }
  out.set(*n, d.line());
  extra_args(p, d, 1);
}

void proxy_retries(Parser& p, const Directive& d, ProxyDraft& x) {
  bounded_int(p, d, x.retries, 0, 10, "vigil retries a connect at most 10 times");
}

void proxy_maxconn(Parser& p, const Directive& d, ProxyDraft& x) {
  bounded_int(p, d, x.maxconn, 1, 10'000'000,
              "a vigil listener holds at most 10000000 connections");
}

void proxy_allbackups(Parser&, const Directive& d, ProxyDraft& x) {
  x.allbackups.set(true, d.line());
}

void proxy_tcplog(Parser&, const Directive& d, ProxyDraft& x) { x.tcplog.set(true, d.line()); }

void proxy_disabled(Parser&, const Directive& d, ProxyDraft& x) { x.disabled.set(true, d.line()); }
void proxy_enabled(Parser&, const Directive& d, ProxyDraft& x) { x.disabled.set(false, d.line()); }

void proxy_self_served(Parser&, const Directive& d, ProxyDraft& x) {
  if (x.self_served_line == 0) x.self_served_line = d.line();
}

// Frontends keep their acl lines and tcp-request accept/reject rules for allowed_cidrs
// (source_rules.h), which reports what it cannot convert; elsewhere they do nothing in vigil.
bool keeps_sources(Parser& p, const Directive& d, const ProxyDraft& x) {
  if ((x.kind & (kFrontend | kListen)) != 0) return true;
  p.warning(d.line(), "ignored: `" + d.text() + "`: " + std::string(kNoAcls));
  return false;
}

void proxy_acl(Parser& p, const Directive& d, ProxyDraft& x) {
  if (!keeps_sources(p, d, x) || !needs_args(p, d, 2, "a name and a test")) return;
  const auto args = d.args();
  x.sources.acls.push_back(AclLine{.line = d.line(),
                                   .text = d.text(),
                                   .name = args[0],
                                   .words = {args.begin() + 1, args.end()}});
}

void proxy_tcp_request(Parser& p, const Directive& d, ProxyDraft& x) {
  const std::string layer(d.arg(0));
  const std::string action(d.arg(1));
  const bool source_rule = (layer == "connection" || layer == "session" || layer == "content") &&
                           (action == "accept" || action == "reject");
  if (!source_rule) {
    return p.warning(d.line(), "ignored: `" + d.text() + "`: " + std::string(kNoAcls));
  }
  if (!keeps_sources(p, d, x)) return;
  const auto args = d.args();
  x.sources.rules.push_back(SourceRule{.line = d.line(),
                                       .text = d.text(),
                                       .layer = layer,
                                       .action = action,
                                       .condition = {args.begin() + 2, args.end()}});
}

void proxy_http_request(Parser& p, const Directive& d, ProxyDraft& x) {
  if (std::ranges::find(d.args(), "use-service") != d.args().end()) proxy_self_served(p, d, x);
}

constexpr Keyword<ProxyDraft> kProxyKeywords[] = {
    // What vigil maps.
    {"mode", kAllProxies, kMapped,
     "tcp: vigil's only mode. http: a warning, and the proxy is loaded as TCP.", proxy_mode},
    {"bind", F | L, kMapped,
     "A listener per address (`<frontend>`, `<frontend>-2`...): `*:6443` and `:6443` are every "
     "IPv4 address (0.0.0.0), `:::6443` and `[::]:6443` every IPv6 one.",
     proxy_bind},
    {"default_backend", D | F | L, kMapped, "The listeners' pool.", proxy_default_backend},
    {"use_backend", F | L, kMapped,
     "A warning: vigil routes without conditions. Used as the pool only when the frontend has "
     "no default_backend and names just this one backend.",
     proxy_use_backend},
    {"balance", D | B | L, kMapped,
     "`algorithm`: roundrobin and static-rr -> round_robin, leastconn -> least_connections, "
     "source -> source_ip; any other is a warning and round_robin.",
     proxy_balance},
    {"server", B | L, kMapped, "A member; see the server parameters.", proxy_server},
    {"default-server", D | B | L, kMapped,
     "Parameters for the server lines that follow it in the section, and in the proxies using "
     "the defaults section.",
     proxy_default_server},
    {"option httpchk", D | B | L, kMapped,
     "An HTTP check (HTTPS with `check-ssl`, `ssl` or `http-check connect ssl`): "
     "`option httpchk [<method>] <uri> [<version>]`, HAProxy's default OPTIONS /; a Host header "
     "in the version is kept.",
     proxy_httpchk},
    {"option ssl-hello-chk", D | B | L, kMapped,
     "A TLS-HELLO monitor: a real TLS handshake (HAProxy's SSLv3 hello is refused by modern "
     "servers).",
     proxy_ssl_hello_chk},
    {"option tcp-check", D | B | L, kMapped,
     "A TCP monitor (TLS-HELLO with `check-ssl` or `tcp-check connect ssl`); send/expect rules are "
     "a warning.",
     proxy_tcp_check_option},
    {"option mysql-check", D | B | L, kMapped,
     "A warning: vigil cannot speak MySQL; the servers get a TCP check.", proxy_other_check},
    {"option pgsql-check", D | B | L, kMapped,
     "A warning: vigil cannot speak PostgreSQL; the servers get a TCP check.", proxy_other_check},
    {"option redis-check", D | B | L, kMapped,
     "A warning: vigil cannot speak Redis; the servers get a TCP check.", proxy_other_check},
    {"option smtpchk", D | B | L, kMapped,
     "A warning: vigil cannot speak SMTP; the servers get a TCP check.", proxy_other_check},
    {"option ldap-check", D | B | L, kMapped,
     "A warning: vigil cannot speak LDAP; the servers get a TCP check.", proxy_other_check},
    {"option spop-check", D | B | L, kMapped,
     "A warning: vigil cannot speak SPOP; the servers get a TCP check.", proxy_other_check},
    {"option external-check", D | B | L, kMapped,
     "A warning: vigil does not run external programs; the servers get a TCP check.",
     proxy_other_check},
    {"http-check send", D | B | L, kMapped,
     "`meth` -> http_method, `uri` -> path, `hdr Host` -> host; a body or other headers are a "
     "warning.",
     proxy_http_check_send},
    {"http-check expect", D | B | L, kMapped,
     "`status <codes>` -> expected_codes; `rstatus` listing codes (`200|202`, as Octavia writes "
     "it) too. Other matches are a warning. Without it, 200-399 (HAProxy passes 2xx and 3xx).",
     proxy_http_check_expect},
    {"http-check connect", D | B | L, kMapped,
     "`ssl` -> HTTPS, `port` -> monitor_port, `addr` -> monitor_address, `sni` -> tls.server_name.",
     proxy_http_check_connect},
    {"tcp-check connect", D | B | L, kMapped,
     "`ssl` -> TLS-HELLO, `port` -> monitor_port, `addr` -> monitor_address, `sni` -> "
     "tls.server_name.",
     proxy_tcp_check_connect},
    {"timeout connect", D | B | L, kMapped, "`connect_timeout` of the pool.",
     [](Parser& p, const Directive& d, ProxyDraft& x) {
       proxy_timeout(p, d, x.timeout_connect, kMaxCheck);
     }},
    {"timeout client", D | F | L, kMapped,
     "`idle_timeout` of the listeners: the largest of client, server and tunnel. A warning when "
     "below 1h, as it cuts long watches; the value is kept.",
     [](Parser& p, const Directive& d, ProxyDraft& x) {
       proxy_timeout(p, d, x.timeout_client, Duration::max());
     }},
    {"timeout server", D | B | L, kMapped, "`idle_timeout`, as `timeout client`.",
     [](Parser& p, const Directive& d, ProxyDraft& x) {
       proxy_timeout(p, d, x.timeout_server, Duration::max());
     }},
    {"timeout tunnel", D | B | L, kMapped, "`idle_timeout`, as `timeout client`.",
     [](Parser& p, const Directive& d, ProxyDraft& x) {
       proxy_timeout(p, d, x.timeout_tunnel, Duration::max());
     }},
    {"timeout check", D | B | L, kMapped,
     "The monitor's `timeout`. Without it HAProxy gives a check `inter` to complete, and so "
     "does vigil; a TCP (connect-only) check gets min(timeout connect, inter), as in HAProxy.",
     [](Parser& p, const Directive& d, ProxyDraft& x) {
       proxy_timeout(p, d, x.timeout_check, kMaxCheck);
     }},
    {"retries", D | B | L, kMapped, "`retries` of the pool (at most 10).", proxy_retries},
    {"maxconn", D | F | L, kMapped, "`max_connections` of the listeners.", proxy_maxconn},
    {"disabled", kAllProxies, kMapped,
     "A disabled frontend or listen gets no listener; a disabled backend's members are disabled "
     "(each a warning).",
     proxy_disabled},
    {"enabled", kAllProxies, kMapped, "Undoes `disabled`.", proxy_enabled},
    {"option tcplog", kAllProxies, kMapped,
     "`log_connections: true` on the listeners of the frontend or listen (or of those that use "
     "the defaults section); in a backend it does nothing, as in HAProxy, where the frontend "
     "decides what is logged.",
     proxy_tcplog},
    // What vigil already does.
    {"option redispatch", D | B | L, kAccepted,
     "vigil always retries a failed connect on another member"},
    {"redispatch", D | B | L, kAccepted, "vigil always retries a failed connect on another member"},
    {"option log-health-checks", D | B | L, kAccepted,
     "vigil always logs every check-state change and member transition, with the reason"},
    {"option tcpka", kAllProxies, kAccepted,
     "vigil always enables TCP keepalive on both legs (dead_peer_timeout)"},
    {"option clitcpka", D | F | L, kAccepted,
     "vigil always enables TCP keepalive on both legs (dead_peer_timeout)"},
    {"option srvtcpka", D | B | L, kAccepted,
     "vigil always enables TCP keepalive on both legs (dead_peer_timeout)"},
    // What vigil ignores.
    {"option allbackups", D | B | L, kIgnored,
     "vigil always uses every healthy backup when no primary is usable, which is what this "
     "option asks for",
     proxy_allbackups},
    {"log", kAllProxies, kIgnored, kLogging},
    {"log-format", kAllProxies, kIgnored, kLogging},
    {"log-format-sd", kAllProxies, kIgnored, kLogging},
    {"log-tag", kAllProxies, kIgnored, kLogging},
    {"log-steps", kAllProxies, kIgnored, kLogging},
    {"error-log-format", kAllProxies, kIgnored, kLogging},
    {"option httplog", kAllProxies, kIgnored, kHttpOnly},
    {"option httpslog", kAllProxies, kIgnored, kHttpOnly},
    {"option dontlognull", kAllProxies, kIgnored, kLogging},
    {"option dontlog-normal", kAllProxies, kIgnored, kLogging},
    {"option log-separate-errors", kAllProxies, kIgnored, kLogging},
    {"option logasap", kAllProxies, kIgnored, kLogging},
    {"description", kAllProxies, kIgnored, kStats},
    {"id", kAllProxies, kIgnored, "vigil derives ids from names"},
    {"stats", kAllProxies, kIgnored, kStats, proxy_self_served},
    {"monitor-uri", D | F | L, kIgnored, "vigil's own health is GET /healthz on admin.listen"},
    {"monitor", D | F | L, kIgnored, "vigil's own health is GET /healthz on admin.listen"},
    {"acl", kAllProxies, kMapped,
     "In a frontend or listen, `acl NAME src CIDR...` names the networks of the tcp-request "
     "rules below; any other acl is ignored (a warning), since vigil evaluates no ACLs.",
     proxy_acl},
    {"tcp-request", kAllProxies, kMapped,
     "In a frontend or listen, `tcp-request connection` (or `session`, `content`) rules that "
     "allow a list of source networks become the listeners' `allowed_cidrs`: `reject unless "
     "{ src CIDR... }`, `reject if !{ src ... }`, or `reject unless NAME` of `acl NAME src ...` "
     "lines; also `accept if { src ... }` rules followed by an unconditional `reject`. A rule "
     "of any other shape converts to no restriction, with a warning at its line that says so; "
     "other tcp-request rules are ignored (a warning).",
     proxy_tcp_request},
    {"tcp-response", kAllProxies, kIgnored, kNoAcls},
    {"http-request", kAllProxies, kIgnored, kHttpOnly, proxy_http_request},
    {"http-response", kAllProxies, kIgnored, kHttpOnly},
    {"http-after-response", kAllProxies, kIgnored, kHttpOnly},
    {"http-error", kAllProxies, kIgnored, kHttpOnly},
    {"http-reuse", kAllProxies, kIgnored, kHttpOnly},
    {"http-send-name-header", kAllProxies, kIgnored, kHttpOnly},
    {"http-check disable-on-404", D | B | L, kIgnored,
     "vigil's HTTP checks pass or fail on expected_codes only"},
    {"http-check send-state", D | B | L, kIgnored, "vigil's HTTP checks send no state header"},
    {"http-check comment", D | B | L, kIgnored, "a comment for HAProxy's logs", http_check_rule},
    {"http-check set-var", D | B | L, kIgnored, "vigil's checks have no variables",
     http_check_rule},
    {"http-check unset-var", D | B | L, kIgnored, "vigil's checks have no variables",
     http_check_rule},
    {"tcp-check send", D | B | L, kIgnored, kNoCheckData, tcp_check_rule},
    {"tcp-check send-lf", D | B | L, kIgnored, kNoCheckData, tcp_check_rule},
    {"tcp-check send-binary", D | B | L, kIgnored, kNoCheckData, tcp_check_rule},
    {"tcp-check send-binary-lf", D | B | L, kIgnored, kNoCheckData, tcp_check_rule},
    {"tcp-check expect", D | B | L, kIgnored, kNoCheckData, tcp_check_rule},
    {"tcp-check comment", D | B | L, kIgnored, "a comment for HAProxy's logs", tcp_check_rule},
    {"tcp-check set-var", D | B | L, kIgnored, "vigil's checks have no variables", tcp_check_rule},
    {"tcp-check unset-var", D | B | L, kIgnored, "vigil's checks have no variables",
     tcp_check_rule},
    {"tcp-check action", D | B | L, kIgnored, "vigil's checks have no actions", tcp_check_rule},
    {"external-check", D | B | L, kIgnored, "vigil does not run external programs"},
    {"errorfile", kAllProxies, kIgnored, kHttpOnly},
    {"errorfiles", kAllProxies, kIgnored, kHttpOnly},
    {"errorloc", kAllProxies, kIgnored, kHttpOnly},
    {"errorloc302", kAllProxies, kIgnored, kHttpOnly},
    {"errorloc303", kAllProxies, kIgnored, kHttpOnly},
    {"compression", kAllProxies, kIgnored, kHttpOnly},
    {"cookie", D | B | L, kIgnored, kHttpOnly},
    {"capture", F | L, kIgnored, kHttpOnly},
    {"declare", F | L, kIgnored, kHttpOnly},
    {"redirect", F | B | L, kIgnored, kHttpOnly},
    {"unique-id-format", D | F | L, kIgnored, kHttpOnly},
    {"unique-id-header", D | F | L, kIgnored, kHttpOnly},
    {"max-keep-alive-queue", D | B | L, kIgnored, kHttpOnly},
    {"filter", kAllProxies, kIgnored, "vigil has no filters"},
    {"use-fcgi-app", B | L, kIgnored, kHttpOnly},
    {"option forwardfor", kAllProxies, kIgnored, kHttpOnly},
    {"option originalto", kAllProxies, kIgnored, kHttpOnly},
    {"option http-server-close", kAllProxies, kIgnored, kHttpOnly},
    {"option httpclose", kAllProxies, kIgnored, kHttpOnly},
    {"option forceclose", kAllProxies, kIgnored, kHttpOnly},
    {"option http-keep-alive", kAllProxies, kIgnored, kHttpOnly},
    {"option http-tunnel", kAllProxies, kIgnored, kHttpOnly},
    {"option http-pretend-keepalive", kAllProxies, kIgnored, kHttpOnly},
    {"option http-buffer-request", kAllProxies, kIgnored, kHttpOnly},
    {"option http-ignore-probes", kAllProxies, kIgnored, kHttpOnly},
    {"option http-no-delay", kAllProxies, kIgnored, kHttpOnly},
    {"option http-use-proxy-header", kAllProxies, kIgnored, kHttpOnly},
    {"option http-use-htx", kAllProxies, kIgnored, kHttpOnly},
    {"option http-restrict-req-hdr-names", kAllProxies, kIgnored, kHttpOnly},
    {"option http-drop-request-trailers", kAllProxies, kIgnored, kHttpOnly},
    {"option http-drop-response-trailers", kAllProxies, kIgnored, kHttpOnly},
    {"option http_proxy", kAllProxies, kIgnored, kHttpOnly},
    {"option accept-invalid-http-request", kAllProxies, kIgnored, kHttpOnly},
    {"option accept-invalid-http-response", kAllProxies, kIgnored, kHttpOnly},
    {"option accept-unsafe-violations-in-http-request", kAllProxies, kIgnored, kHttpOnly},
    {"option accept-unsafe-violations-in-http-response", kAllProxies, kIgnored, kHttpOnly},
    {"option h1-case-adjust-bogus-client", kAllProxies, kIgnored, kHttpOnly},
    {"option h1-case-adjust-bogus-server", kAllProxies, kIgnored, kHttpOnly},
    {"option disable-h2-upgrade", kAllProxies, kIgnored, kHttpOnly},
    {"option idle-close-on-response", kAllProxies, kIgnored, kHttpOnly},
    {"option checkcache", kAllProxies, kIgnored, kHttpOnly},
    {"option prefer-last-server", kAllProxies, kIgnored, kHttpOnly},
    {"option splice-auto", kAllProxies, kIgnored, "vigil decides by itself when to splice"},
    {"option splice-request", kAllProxies, kIgnored, "vigil decides by itself when to splice"},
    {"option splice-response", kAllProxies, kIgnored, "vigil decides by itself when to splice"},
    {"option abortonclose", kAllProxies, kIgnored,
     "vigil forwards a client's close to the member at once"},
    {"option nolinger", kAllProxies, kIgnored, "vigil closes sockets the usual way"},
    {"option independent-streams", kAllProxies, kIgnored,
     "vigil's idle_timeout counts bytes in either direction"},
    {"option contstats", kAllProxies, kIgnored, kStats},
    {"option socket-stats", kAllProxies, kIgnored, kStats},
    {"option transparent", kAllProxies, kIgnored,
     "vigil connects to the members' own addresses, never to the client's destination"},
    {"option tcp-smart-accept", kAllProxies, kIgnored, kTuning},
    {"option tcp-smart-connect", kAllProxies, kIgnored, kTuning},
    {"option persist", kAllProxies, kIgnored, kNoPersistence},
    {"clitcpka-cnt", D | F | L, kIgnored, "set by the listener's dead_peer_timeout"},
    {"clitcpka-idle", D | F | L, kIgnored, "set by the listener's dead_peer_timeout"},
    {"clitcpka-intvl", D | F | L, kIgnored, "set by the listener's dead_peer_timeout"},
    {"srvtcpka-cnt", D | B | L, kIgnored, "set by the pool's dead_peer_timeout"},
    {"srvtcpka-idle", D | B | L, kIgnored, "set by the pool's dead_peer_timeout"},
    {"srvtcpka-intvl", D | B | L, kIgnored, "set by the pool's dead_peer_timeout"},
    {"timeout queue", D | B | L, kIgnored,
     "vigil has no queue: a connection goes to a member at once"},
    {"timeout http-request", kAllProxies, kIgnored, kHttpOnly},
    {"timeout http-keep-alive", kAllProxies, kIgnored, kHttpOnly},
    {"timeout tarpit", kAllProxies, kIgnored, kHttpOnly},
    {"timeout client-fin", D | F | L, kIgnored,
     "vigil closes a half-closed session with the idle_timeout"},
    {"timeout server-fin", D | B | L, kIgnored,
     "vigil closes a half-closed session with the idle_timeout"},
    {"timeout client-hs", D | F | L, kIgnored, "vigil passes TLS through"},
    {"fullconn", D | B | L, kIgnored, "vigil has no dynamic per-server limits"},
    {"backlog", D | F | L, kIgnored, kTuning},
    {"bind-process", kAllProxies, kIgnored, "vigil runs one worker thread per core"},
    {"hash-type", D | B | L, kIgnored, "vigil's source_ip hashing is its own"},
    {"hash-balance-factor", D | B | L, kIgnored, "vigil's source_ip hashing is its own"},
    {"rate-limit", D | F | L, kIgnored, "vigil does not limit the rate of new sessions"},
    {"retry-on", D | B | L, kIgnored, "vigil retries refused and timed-out connects"},
    {"source", D | B | L, kIgnored, "vigil connects to members from the address the kernel picks"},
    {"dispatch", B, kIgnored, "vigil sends connections to the members only"},
    {"transparent", B | L, kIgnored,
     "vigil connects to the members' own addresses, never to the client's destination"},
    {"persist", D | B | L, kIgnored, kNoPersistence},
    {"force-persist", F | B | L, kIgnored, kNoPersistence},
    {"ignore-persist", F | B | L, kIgnored, kNoPersistence},
    {"stick-table", F | B | L, kMapped,
     "With `stick on src` in the same backend: the pool's session_persistence SOURCE_IP, as "
     "Octavia's amphora writes it. `type ip` or `ipv6`; `expire` becomes its timeout (HAProxy "
     "keeps entries without one until newer ones push them out, vigil forgets a client after "
     "360s, with a warning); vigil's table holds 10000 clients per pool whatever the `size`.",
     proxy_stick_table},
    {"stick", B | L, kMapped,
     "`stick on src` (or `stick match src` with `stick store-request src`) on the backend's own "
     "table: see `stick-table`. Other patterns, other tables and conditions are a warning.",
     proxy_stick},
    {"use-server", B | L, kIgnored, kNoAcls},
    {"server-template", B | L, kIgnored,
     "its servers are not loaded: vigil does not discover servers through DNS records; write "
     "server lines"},
    {"load-server-state-from-file", D | B | L, kIgnored,
     "vigil keeps its members' health across reloads itself"},
    {"server-state-file-name", D | B | L, kIgnored,
     "vigil keeps its members' health across reloads itself"},
    {"email-alert", D | B | L, kIgnored,
     "vigil logs transitions and exports them as metrics; alert from there"},
    {"max-session-srv-conns", D | F | L, kIgnored, kHttpOnly},
    {"guid", F | B | L, kIgnored, "vigil derives ids from names"},
};

}  // namespace

std::span<const Keyword<ProxyDraft>> proxy_keywords() { return kProxyKeywords; }

}  // namespace vigil::config::haproxy
