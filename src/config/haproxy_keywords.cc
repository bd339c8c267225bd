// The keyword tables of haproxy.cfg and their handlers. A handler stores what a directive says in
// the draft (haproxy_draft.h) and reports problems of its own values; what the directives mean
// together (which check a backend runs, a listener's idle timeout) is decided in
// haproxy_build.cc.
#include "config/haproxy_keywords.h"

#include <algorithm>
#include <cctype>

#include "base/duration.h"
#include "config/address.h"
#include "config/haproxy_values.h"
#include "config/suggest.h"
#include "model/expected_codes.h"

namespace vigil::config::haproxy {
namespace {

using model::Algorithm;

constexpr unsigned D = kDefaults;
constexpr unsigned F = kFrontend;
constexpr unsigned B = kBackend;
constexpr unsigned L = kListen;
constexpr unsigned G = kGlobal;
constexpr unsigned kAllProxies = D | F | B | L;

constexpr Use kMapped = Use::kMapped;
constexpr Use kAccepted = Use::kAccepted;
constexpr Use kIgnored = Use::kIgnored;
constexpr Use kRefused = Use::kRefused;

// Check durations: as vigil's YAML allows (yaml_keys.h's kMaxCheckDuration).
constexpr Duration kMaxCheck = std::chrono::hours(24);

// Reasons shared by many keywords.
constexpr std::string_view kHttpOnly =
    "applies to HTTP mode only; vigil proxies TCP and passes the bytes through unchanged";
constexpr std::string_view kLogging =
    "vigil logs to stderr in its own format: a line per check-state change and member "
    "transition, with the reason";
constexpr std::string_view kNoAcls =
    "vigil does not evaluate ACLs or inspect connections: every connection is accepted and "
    "forwarded (filter at the firewall)";
constexpr std::string_view kNoPersistence =
    "vigil has no stick tables or persistence; `balance source` (algorithm source_ip) keeps a "
    "client on one member";
constexpr std::string_view kTlsSettings =
    "vigil's TLS checks use OpenSSL's defaults (TLS 1.2 and 1.3)";
constexpr std::string_view kProcess =
    "HAProxy process setting; run vigil under systemd (vigil serve stays in the foreground)";
constexpr std::string_view kTuning = "HAProxy tuning; vigil sizes its own buffers and queues";
constexpr std::string_view kStats =
    "HAProxy's statistics page; vigil's status page, /metrics and API are on admin.listen "
    "(127.0.0.1:8404 by default)";
constexpr std::string_view kNoCheckData =
    "vigil's checks cannot send or expect data over TCP; the servers get a connect check (a TLS "
    "handshake with `ssl`/`check-ssl`)";

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string shown(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 60)) out += std::iscntrl(static_cast<unsigned char>(c)) ? '?' : c;
  return text.size() > 60 ? out + "..." : out;
}

bool needs_args(Parser& p, const Directive& d, size_t n, std::string_view expected) {
  if (d.args().size() >= n) return true;
  p.error(d.line(), "`" + d.keyword() + "` needs " + std::string(expected));
  return false;
}

void extra_args(Parser& p, const Directive& d, size_t used) {
  if (d.args().size() > used) {
    p.warning(d.line(), "ignored: extra words after `" + d.keyword() + "`: `" +
                            shown(d.args()[used]) + "`...");
  }
}

// ---- global ----------------------------------------------------------------------------------

void global_nbthread(Parser& p, const Directive& d, GlobalDraft& g) {
  if (!needs_args(p, d, 1, "a number of threads")) return;
  if (auto n = p.integer(d.line(), "nbthread", d.arg(0), 1, 1024)) g.nbthread.set(*n, d.line());
  extra_args(p, d, 1);
}

void global_ssl_server_verify(Parser& p, const Directive& d, GlobalDraft& g) {
  if (!needs_args(p, d, 1, "none or required")) return;
  const std::string word = lower(d.arg(0));
  if (word == "none") {
    g.verify_none.set(true, d.line());
  } else if (word == "required") {
    g.verify_none.set(false, d.line());
  } else {
    p.error(d.line(),
            "ssl-server-verify must be none or required, not \"" + shown(d.arg(0)) + "\"");
  }
}

void global_ca_base(Parser& p, const Directive& d, GlobalDraft& g) {
  if (needs_args(p, d, 1, "a directory")) g.ca_base = d.arg(0);
}

void global_crt_base(Parser& p, const Directive& d, GlobalDraft& g) {
  if (needs_args(p, d, 1, "a directory")) g.crt_base = d.arg(0);
}

constexpr Keyword<GlobalDraft> kGlobalKeywords[] = {
    {"nbthread", G, kMapped, "`workers`: the number of proxy worker threads.", global_nbthread},
    {"ssl-server-verify", G, kMapped,
     "The default of the servers' `verify` (HAProxy's default: required).",
     global_ssl_server_verify},
    {"ca-base", G, kMapped, "Directory of relative `ca-file` names.", global_ca_base},
    {"crt-base", G, kMapped, "Directory of relative `crt` names.", global_crt_base},
    {"maxconn", G, kIgnored,
     "vigil has no process-wide connection limit; each listener has max_connections (a "
     "frontend's or defaults' `maxconn`)"},
    {"daemon", G, kIgnored, kProcess},
    {"master-worker", G, kIgnored, kProcess},
    {"nbproc", G, kIgnored, "vigil is one process with one worker thread per core"},
    {"cpu-map", G, kIgnored, kProcess},
    {"chroot", G, kIgnored, kProcess},
    {"user", G, kIgnored, kProcess},
    {"group", G, kIgnored, kProcess},
    {"uid", G, kIgnored, kProcess},
    {"gid", G, kIgnored, kProcess},
    {"pidfile", G, kIgnored, kProcess},
    {"ulimit-n", G, kIgnored, kProcess},
    {"hard-stop-after", G, kIgnored,
     "vigil keeps established sessions across reloads and stops on SIGTERM"},
    {"grace", G, kIgnored, kProcess},
    {"node", G, kIgnored, kStats},
    {"description", G, kIgnored, kStats},
    {"stats", G, kIgnored, kStats},
    {"log", G, kIgnored, kLogging},
    {"log-send-hostname", G, kIgnored, kLogging},
    {"log-tag", G, kIgnored, kLogging},
    {"quiet", G, kIgnored, kLogging},
    {"spread-checks", G, kIgnored,
     "vigil always spreads checks: each interval varies by up to 10% either way"},
    {"max-spread-checks", G, kIgnored,
     "vigil always spreads checks: each interval varies by up to 10% either way"},
    {"tune.*", G, kIgnored, kTuning},
    {"maxsslconn", G, kIgnored, kTuning},
    {"maxconnrate", G, kIgnored, kTuning},
    {"maxsessrate", G, kIgnored, kTuning},
    {"maxsslrate", G, kIgnored, kTuning},
    {"maxpipes", G, kIgnored, kTuning},
    {"maxzlibmem", G, kIgnored, kTuning},
    {"maxcomprate", G, kIgnored, kTuning},
    {"maxcompcpuusage", G, kIgnored, kTuning},
    {"busy-polling", G, kIgnored, kTuning},
    {"noepoll", G, kIgnored, kTuning},
    {"nopoll", G, kIgnored, kTuning},
    {"nosplice", G, kIgnored, kTuning},
    {"nogetaddrinfo", G, kIgnored, kTuning},
    {"noreuseport", G, kIgnored, kTuning},
    {"thread-groups", G, kIgnored, kTuning},
    {"numa-cpu-mapping", G, kIgnored, kTuning},
    {"ssl-default-*", G, kIgnored, kTlsSettings},
    {"ssl-dh-param-file", G, kIgnored, kTlsSettings},
    {"ssl-engine", G, kIgnored, kTlsSettings},
    {"ssl-mode-async", G, kIgnored, kTlsSettings},
    {"ssl-load-extra-files", G, kIgnored, kTlsSettings},
    {"ssl-propquery", G, kIgnored, kTlsSettings},
    {"ssl-provider", G, kIgnored, kTlsSettings},
    {"ssl-security-level", G, kIgnored, kTlsSettings},
    {"ssl-skip-self-issued-ca", G, kIgnored, kTlsSettings},
    {"issuers-chain-path", G, kIgnored, kTlsSettings},
    {"server-state-file", G, kIgnored, "vigil keeps its members' health across reloads itself"},
    {"server-state-base", G, kIgnored, "vigil keeps its members' health across reloads itself"},
    {"lua-*", G, kIgnored, "vigil does not run Lua"},
    {"external-check", G, kIgnored, "vigil does not run external check programs"},
    {"insecure-fork-wanted", G, kIgnored, "vigil does not run external check programs"},
    {"setenv", G, kIgnored, "vigil does not expand environment variables"},
    {"presetenv", G, kIgnored, "vigil does not expand environment variables"},
    {"resetenv", G, kIgnored, "vigil does not expand environment variables"},
    {"unsetenv", G, kIgnored, "vigil does not expand environment variables"},
    {"localpeer", G, kIgnored, "vigil has no peers"},
    {"unix-bind", G, kIgnored, "vigil does not bind UNIX sockets"},
    {"expose-experimental-directives", G, kIgnored, "HAProxy-specific"},
    {"zero-warning", G, kIgnored, "HAProxy-specific"},
    {"strict-limits", G, kIgnored, "HAProxy-specific"},
    {"set-dumpable", G, kIgnored, "HAProxy-specific"},
    {"default-path", G, kIgnored, "HAProxy-specific"},
    {"h1-*", G, kIgnored, kHttpOnly},
    {"httpclient.*", G, kIgnored, "HAProxy's internal HTTP client"},
    {"profiling.*", G, kIgnored, "HAProxy-specific"},
    {"51degrees-*", G, kIgnored, kHttpOnly},
    {"deviceatlas-*", G, kIgnored, kHttpOnly},
    {"wurfl-*", G, kIgnored, kHttpOnly},
};

// ---- proxies ---------------------------------------------------------------------------------

void proxy_mode(Parser& p, const Directive& d, ProxyDraft& x) {
  if (!needs_args(p, d, 1, "tcp or http")) return;
  const std::string word = lower(d.arg(0));
  if (word != "tcp" && word != "http") {
    return p.error(d.line(),
                   "unknown mode \"" + shown(d.arg(0)) + "\"; vigil proxies TCP (mode tcp)");
  }
  x.mode.set(word, d.line());
  extra_args(p, d, 1);
}

void proxy_balance(Parser& p, const Directive& d, ProxyDraft& x) {
  if (!needs_args(p, d, 1, "an algorithm")) return;
  const std::string word = lower(d.arg(0));
  if (word == "roundrobin") {
    x.balance.set(Algorithm::kRoundRobin, d.line());
  } else if (word == "leastconn") {
    x.balance.set(Algorithm::kLeastConnections, d.line());
  } else if (word == "source") {
    x.balance.set(Algorithm::kSourceIp, d.line());
  } else if (word == "static-rr") {
    x.balance.set(Algorithm::kRoundRobin, d.line());
    p.warning(d.line(),
              "`balance static-rr` becomes round_robin: vigil's round robin is weighted like "
              "static-rr, and weights cannot change at run time from haproxy.cfg anyway");
  } else {
    x.balance.set(Algorithm::kRoundRobin, d.line());
    p.warning(d.line(), "`balance " + shown(d.arg(0)) +
                            "` is not supported: vigil uses round_robin (it has round_robin, "
                            "least_connections and source_ip)");
    return;
  }
  extra_args(p, d, 1);
}

template <typename Target>
void parse_params_impl(Parser& p, int line, std::span<const std::string> words,
                       std::span<const ParamKeyword<Target>> table, std::string_view what,
                       Target& target);

void proxy_bind(Parser& p, const Directive& d, ProxyDraft& x) {
  if (!needs_args(p, d, 1, "an address, like *:6443")) return;
  auto targets = parse_bind_targets(d.arg(0));
  BindDraft options{.line = d.line()};
  parse_params_impl(p, d.line(), d.args().subspan(1), bind_keywords(), "bind", options);
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

void proxy_server(Parser& p, const Directive& d, ProxyDraft& x) {
  if (!needs_args(p, d, 2, "a name and an address, like `server master-01 10.0.0.11:6443 check`")) {
    return;
  }
  auto target = parse_server_target(d.arg(1));
  ServerParams own;
  parse_params_impl(p, d.line(), d.args().subspan(2), server_keywords(), "server", own);
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
  parse_params_impl(p, d.line(), d.args(), server_keywords(), "default-server", own);
  x.default_server.overlay(own);
}

// HAProxy keeps only the last check option of a proxy; one replaced in the same section had no
// effect, and is reported.
void set_check(Parser& p, const Directive& d, ProxyDraft& x, CheckOption option) {
  if (x.check.line > x.line) {
    p.warning(x.check.line, "ignored: `" + x.check.text + "`: replaced by `" + option.text +
                                "` at line " + std::to_string(d.line()) +
                                " (HAProxy uses a proxy's last check option)");
  }
  x.check = std::move(option);
}

bool valid_method(std::string_view method) {
  static constexpr std::string_view kMethods[] = {"GET",   "HEAD",    "POST",    "PUT",  "DELETE",
                                                  "TRACE", "OPTIONS", "CONNECT", "PATCH"};
  return std::ranges::find(kMethods, method) != std::end(kMethods);
}

bool check_method(Parser& p, int line, std::string_view method) {
  if (valid_method(method)) return true;
  p.error(line, "health check method \"" + shown(method) +
                    "\" is not supported; use GET, HEAD, POST, PUT, DELETE, TRACE, OPTIONS, "
                    "CONNECT or PATCH");
  return false;
}

bool check_uri(Parser& p, int line, std::string_view uri) {
  const bool bad_char = std::ranges::any_of(
      uri, [](char c) { return c == ' ' || std::iscntrl(static_cast<unsigned char>(c)); });
  if (uri.starts_with('/') && !bad_char) return true;
  p.error(line, "health check URI \"" + shown(uri) +
                    "\" must start with '/' and hold no spaces or control characters");
  return false;
}

// A header of a check request: Host is kept, others are reported.
void check_header(Parser& p, int line, std::string_view name, std::string_view value,
                  Lined<std::string>& host) {
  while (value.starts_with(' ')) value.remove_prefix(1);
  if (lower(name) == "host" && !value.empty() && std::ranges::none_of(value, [](char c) {
        return c == ' ' || std::iscntrl(static_cast<unsigned char>(c));
      })) {
    host.set(std::string(value), line);
    return;
  }
  p.warning(line, "ignored: health check header `" + shown(name) +
                      "`: vigil's HTTP checks send Host (and a bearer token when configured)");
}

// `option httpchk [<uri>] | [<method> <uri> [<version>]]`. The version may carry headers, the
// old way: "HTTP/1.1\r\nHost:\ example.com".
void proxy_httpchk(Parser& p, const Directive& d, ProxyDraft& x) {
  CheckOption option{.kind = CheckKind::kHttp, .line = d.line(), .text = d.text()};
  const auto args = d.args();
  if (args.size() == 1) {
    if (check_uri(p, d.line(), args[0])) option.uri.set(args[0], d.line());
  } else if (args.size() >= 2) {
    const std::string method(args[0]);
    if (check_method(p, d.line(), method)) option.method.set(method, d.line());
    if (check_uri(p, d.line(), args[1])) option.uri.set(args[1], d.line());
  }
  if (args.size() >= 3) {
    std::string_view rest = args[2];
    const size_t eol = rest.find("\r\n");
    const std::string_view version = rest.substr(0, eol);
    if (version != "HTTP/1.0" && version != "HTTP/1.1") {
      p.warning(d.line(), "ignored: HTTP version `" + shown(version) +
                              "` of the health check: vigil sends HTTP/1.1");
    }
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 2);
    while (!rest.empty()) {
      const size_t end = rest.find("\r\n");
      const std::string_view header = rest.substr(0, end);
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 2);
      if (header.empty()) continue;
      const size_t colon = header.find(':');
      check_header(p, d.line(), header.substr(0, colon),
                   colon == std::string_view::npos ? "" : header.substr(colon + 1), option.host);
    }
  }
  extra_args(p, d, 3);
  set_check(p, d, x, std::move(option));
}

void proxy_ssl_hello_chk(Parser& p, const Directive& d, ProxyDraft& x) {
  set_check(p, d, x, {.kind = CheckKind::kSslHello, .line = d.line(), .text = d.text()});
}

void proxy_tcp_check_option(Parser& p, const Directive& d, ProxyDraft& x) {
  set_check(p, d, x, {.kind = CheckKind::kTcpCheck, .line = d.line(), .text = d.text()});
}

void proxy_other_check(Parser& p, const Directive& d, ProxyDraft& x) {
  set_check(p, d, x, {.kind = CheckKind::kOther, .line = d.line(), .text = d.text()});
}

template <typename Rules>
void begin_rules(Rules& rules, int line) {
  if (rules.inherited) rules = Rules{};
  if (rules.first_line == 0) rules.first_line = line;
}

void http_check_rule(Parser&, const Directive& d, ProxyDraft& x) {
  begin_rules(x.http_check, d.line());
}

void tcp_check_rule(Parser&, const Directive& d, ProxyDraft& x) {
  begin_rules(x.tcp_check, d.line());
}

// `http-check connect` / `tcp-check connect` [default] [port N] [addr A] [ssl] [sni S] ...
void parse_connect(Parser& p, const Directive& d, CheckConnect& c) {
  const auto args = d.args();
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    const bool has_value = i + 1 < args.size();
    if (word == "ssl") {
      c.ssl.set(true, d.line());
    } else if (word == "default" || word == "linger") {
      // default: the server's own settings, which is what vigil uses; linger: no effect.
    } else if (word == "port" && has_value) {
      if (auto n = p.integer(d.line(), "port", args[++i], 1, 65535)) c.port.set(*n, d.line());
    } else if (word == "addr" && has_value) {
      auto host = parse_host(args[++i]);
      if (!host) return p.error(d.line(), "addr: " + host.error().message);
      c.addr.set(*host, d.line());
    } else if (word == "sni" && has_value) {
      c.sni.set(args[++i], d.line());
    } else if ((word == "alpn" || word == "proto" || word == "comment") && has_value) {
      p.warning(d.line(), "ignored: `" + word + " " + shown(args[++i]) + "` of `" + d.keyword() +
                              "`: vigil's checks do not negotiate protocols");
    } else {
      p.warning(d.line(), "ignored: `" + shown(word) + "` of `" + d.keyword() +
                              "`: vigil's checks connect directly, without PROXY protocol or "
                              "SOCKS");
    }
  }
}

void proxy_http_check_connect(Parser& p, const Directive& d, ProxyDraft& x) {
  begin_rules(x.http_check, d.line());
  parse_connect(p, d, x.http_check.connect);
}

void proxy_tcp_check_connect(Parser& p, const Directive& d, ProxyDraft& x) {
  begin_rules(x.tcp_check, d.line());
  parse_connect(p, d, x.tcp_check.connect);
}

// `http-check send [meth M] [uri U] [ver V] [hdr N V]... [body B]`
void proxy_http_check_send(Parser& p, const Directive& d, ProxyDraft& x) {
  begin_rules(x.http_check, d.line());
  HttpCheckRules& r = x.http_check;
  const auto args = d.args();
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (i + 1 >= args.size()) {
      p.warning(d.line(), "ignored: `" + shown(word) + "` without a value in `http-check send`");
      break;
    }
    const std::string& value = args[++i];
    if (word == "meth") {
      if (check_method(p, d.line(), value)) r.method.set(value, d.line());
    } else if (word == "uri") {
      if (check_uri(p, d.line(), value)) r.uri.set(value, d.line());
    } else if (word == "ver") {
      if (value != "HTTP/1.0" && value != "HTTP/1.1") {
        p.warning(d.line(), "ignored: HTTP version `" + shown(value) +
                                "` of the health check: vigil sends HTTP/1.1");
      }
    } else if (word == "hdr" && i + 1 < args.size()) {
      check_header(p, d.line(), value, args[++i], r.host);
    } else {
      p.warning(d.line(), "ignored: `" + shown(word) + " " + shown(value) +
                              "` of `http-check send`: vigil's checks send no body and a fixed "
                              "URI");
    }
  }
}

// A regex of rstatus that only lists codes ("200", "200|202", Octavia's form) as codes.
std::optional<std::string> codes_of_regex(std::string_view regex) {
  if (regex.starts_with('^')) regex.remove_prefix(1);
  if (regex.ends_with('$')) regex.remove_suffix(1);
  if (regex.starts_with('(') && regex.ends_with(')')) regex = regex.substr(1, regex.size() - 2);
  std::string out;
  size_t digits = 0;
  for (char c : regex) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      ++digits;
      out += c;
    } else if (c == '|' && digits == 3) {
      digits = 0;
      out += ',';
    } else {
      return std::nullopt;
    }
  }
  if (digits != 3) return std::nullopt;
  return out;
}

// `http-check expect [options] [!] <match> <pattern>`
void proxy_http_check_expect(Parser& p, const Directive& d, ProxyDraft& x) {
  begin_rules(x.http_check, d.line());
  HttpCheckRules& r = x.http_check;
  static constexpr std::string_view kOptions[] = {"min-recv",     "comment",     "ok-status",
                                                  "error-status", "tout-status", "on-success",
                                                  "on-error",     "status-code"};
  const auto args = d.args();
  size_t i = 0;
  while (i + 1 < args.size() && std::ranges::find(kOptions, args[i]) != std::end(kOptions)) i += 2;
  const bool negated = i < args.size() && args[i] == "!";
  if (negated) ++i;
  if (i + 1 >= args.size()) {
    return p.error(d.line(), "`http-check expect` needs a match and a pattern, like status 200");
  }
  const std::string match = lower(args[i]);
  const std::string& pattern = args[i + 1];
  const auto ignore = [&](std::string_view why) {
    p.warning(d.line(), "ignored: `" + d.text() + "`: " + std::string(why) +
                            "; without an expect rule vigil, like HAProxy, passes on 2xx and 3xx");
  };
  if (r.expect_status) {
    return p.warning(d.line(), "ignored: `" + d.text() +
                                   "`: vigil uses only the first status "
                                   "rule (line " +
                                   std::to_string(r.expect_status.line) + ")");
  }
  if (negated) return ignore("vigil cannot expect a status not to match");
  if (match == "status") {
    auto codes = model::ExpectedCodes::parse(pattern);
    if (!codes) return p.error(d.line(), "http-check expect status: " + codes.error().message);
    r.expect_status.set(codes->to_string(), d.line());
  } else if (match == "rstatus") {
    auto codes = codes_of_regex(pattern);
    auto parsed = codes ? model::ExpectedCodes::parse(*codes) : model::ExpectedCodes::parse("x");
    if (!codes || !parsed) {
      return ignore(
          "vigil matches status codes, not regular expressions (it reads a regex that "
          "lists codes, like 200|202)");
    }
    r.expect_status.set(parsed->to_string(), d.line());
  } else {
    ignore("vigil's checks look at the status code only");
  }
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

void proxy_disabled(Parser&, const Directive& d, ProxyDraft& x) { x.disabled.set(true, d.line()); }
void proxy_enabled(Parser&, const Directive& d, ProxyDraft& x) { x.disabled.set(false, d.line()); }

void proxy_self_served(Parser&, const Directive& d, ProxyDraft& x) {
  if (x.self_served_line == 0) x.self_served_line = d.line();
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
    {"option tcplog", kAllProxies, kIgnored, kLogging},
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
    {"acl", kAllProxies, kIgnored, kNoAcls},
    {"tcp-request", kAllProxies, kIgnored, kNoAcls},
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
    {"stick-table", F | B | L, kIgnored, kNoPersistence},
    {"stick", B | L, kIgnored, kNoPersistence},
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

// ---- server and default-server parameters ----------------------------------------------------

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

void server_verify(Parser& p, const ParamUse& u, SP& s) {
  const std::string word = lower(u.values[0]);
  if (word == "none") {
    s.verify.set(false, u.line);
  } else if (word == "required") {
    s.verify.set(true, u.line);
  } else {
    p.error(u.line, "verify must be none or required, not \"" + shown(u.values[0]) + "\"");
  }
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
    "vigil does not send the PROXY protocol header: a server that requires it refuses vigil's "
    "connections";
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
    {"slowstart", 1, kIgnored, "vigil has no slow start: a recovered member gets its full weight"},
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
    {"send-proxy", 0, kIgnored, kProxyProtocol},
    {"send-proxy-v2", 0, kIgnored, kProxyProtocol},
    {"send-proxy-v2-ssl", 0, kIgnored, kProxyProtocol},
    {"send-proxy-v2-ssl-cn", 0, kIgnored, kProxyProtocol},
    {"proxy-v2-options", 1, kIgnored, kProxyProtocol},
    {"set-proxy-v2-tlv-fmt*", 1, kIgnored, kProxyProtocol},
    {"no-send-proxy", 0, kAccepted, "vigil never sends the PROXY protocol header"},
    {"no-send-proxy-v2", 0, kAccepted, "vigil never sends the PROXY protocol header"},
    {"check-send-proxy", 0, kIgnored, kProxyProtocol},
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
    {"non-stick", 0, kIgnored, kNoPersistence},
    {"stick", 0, kIgnored, kNoPersistence},
    {"strict-maxconn", 0, kIgnored, "vigil has no per-server connection limits"},
    {"idle-ping", 1, kIgnored, kHttpOnly},
};

// ---- bind options ----------------------------------------------------------------------------

void bind_ssl(Parser&, const ParamUse& u, BindDraft& b) { b.ssl.set(true, u.line); }

void bind_maxconn(Parser& p, const ParamUse& u, BindDraft& b) {
  if (auto n = p.integer(u.line, "maxconn", u.values[0], 1, 10'000'000)) b.maxconn.set(*n, u.line);
}

constexpr std::string_view kTermination =
    "TLS termination is not supported: vigil passes TLS through to the servers";
constexpr std::string_view kBindTls = "applies to TLS termination, which vigil does not do";

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
     "vigil does not read the PROXY protocol header: it would reach the servers as data"},
    {"accept-netscaler-cip", 1, kIgnored,
     "vigil does not read NetScaler headers: they would reach the servers as data"},
    {"transparent", 0, kIgnored, "vigil binds its own addresses"},
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

// ---- sections --------------------------------------------------------------------------------

constexpr SectionKeyword kSectionKeywords[] = {
    {"global", kGlobal,
     "Process-wide settings; nbthread, ssl-server-verify, ca-base and crt-base "
     "are used."},
    {"defaults", kDefaults,
     "Settings for the proxies that follow (or that name it with `from`), unnamed or named; a "
     "new defaults section starts from HAProxy's defaults again."},
    {"frontend", kFrontend, "Listeners: one per bind address."},
    {"backend", kBackend, "A pool: its servers are the members."},
    {"listen", kListen, "A frontend and a backend in one: listeners and a pool of the same name."},
    {"peers", 0, "replicates HAProxy's stick tables; vigil has none"},
    {"resolvers", 0, "vigil resolves host names with the system resolver"},
    {"userlist", 0, "vigil's API uses a token (admin.token_file)"},
    {"cache", 0, kHttpOnly},
    {"http-errors", 0, kHttpOnly},
    {"fcgi-app", 0, kHttpOnly},
    {"program", 0, "vigil does not start other programs; use systemd units"},
    {"ring", 0, kLogging},
    {"log-forward", 0, kLogging},
    {"mailers", 0, "vigil logs transitions and exports them as metrics; alert from there"},
    {"crt-store", 0, kBindTls},
    {"traces", 0, "HAProxy-specific"},
};

}  // namespace

std::string_view section_name(unsigned kind) {
  switch (kind) {
    case kGlobal:
      return "global";
    case kDefaults:
      return "defaults";
    case kFrontend:
      return "frontend";
    case kBackend:
      return "backend";
    case kListen:
      return "listen";
  }
  return "?";
}

std::span<const SectionKeyword> section_keywords() { return kSectionKeywords; }
std::span<const Keyword<GlobalDraft>> global_keywords() { return kGlobalKeywords; }
std::span<const Keyword<ProxyDraft>> proxy_keywords() { return kProxyKeywords; }
std::span<const ParamKeyword<ServerParams>> server_keywords() { return kServerKeywords; }
std::span<const ParamKeyword<BindDraft>> bind_keywords() { return kBindKeywords; }

namespace {

template <typename Target>
void parse_params_impl(Parser& p, int line, std::span<const std::string> words,
                       std::span<const ParamKeyword<Target>> table, std::string_view what,
                       Target& target) {
  for (size_t i = 0; i < words.size();) {
    size_t used = 0;
    const ParamKeyword<Target>* k = find_keyword(table, words.subspan(i, 1), used);
    if (k == nullptr) {
      std::vector<std::string_view> names;
      for (const auto& e : table) names.push_back(e.name);
      p.warning(line, "ignored: unknown " + std::string(what) + " parameter `" + shown(words[i]) +
                          "`" + did_you_mean(words[i], names));
      ++i;
      continue;
    }
    const size_t count = static_cast<size_t>(k->values);
    if (i + 1 + count > words.size()) {
      p.error(line, "`" + shown(words[i]) + "` on a " + std::string(what) + " line needs " +
                        (count == 1 ? "a value" : std::to_string(count) + " values"));
      break;
    }
    const ParamUse use{.line = line, .name = words[i], .values = words.subspan(i + 1, count)};
    if (k->use == Use::kIgnored) {
      p.warning(line, "ignored: " + std::string(what) + " parameter `" + use.text() +
                          "`: " + std::string(k->doc));
    }
    if (k->handle != nullptr) k->handle(p, use, target);
    i += 1 + count;
  }
}

}  // namespace

template <typename Target>
void parse_params(Parser& p, int line, std::span<const std::string> words,
                  std::span<const ParamKeyword<Target>> table, std::string_view what,
                  Target& target) {
  parse_params_impl(p, line, words, table, what, target);
}
template void parse_params(Parser&, int, std::span<const std::string>,
                           std::span<const ParamKeyword<ServerParams>>, std::string_view,
                           ServerParams&);
template void parse_params(Parser&, int, std::span<const std::string>,
                           std::span<const ParamKeyword<BindDraft>>, std::string_view, BindDraft&);

std::vector<std::string_view> family_words(std::string_view head) {
  std::vector<std::string_view> out;
  for (const auto& k : kProxyKeywords) {
    const size_t space = k.name.find(' ');
    if (space != std::string_view::npos && k.name.substr(0, space) == head) {
      out.push_back(k.name.substr(space + 1));
    }
  }
  return out;
}

namespace {

std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string what_vigil_does(Use use, std::string_view doc) {
  std::string text(doc);
  if (!text.empty() && !text.ends_with('.')) text += '.';
  switch (use) {
    case Use::kMapped:
      return cell(text);
    case Use::kAccepted:
      return "accepted: " + cell(text);
    case Use::kIgnored:
      return "ignored (warning): " + cell(text);
    case Use::kRefused:
      return "**error**: " + cell(text);
  }
  return "";
}

std::string sections_text(unsigned sections) {
  std::string out;
  for (unsigned kind : {kDefaults, kFrontend, kBackend, kListen}) {
    if ((sections & kind) == 0) continue;
    if (!out.empty()) out += ", ";
    out += section_name(kind);
  }
  return out;
}

template <typename Entry>
std::string param_table(std::string_view title, std::span<const Entry> table) {
  std::string out = "### " + std::string(title) + "\n\n| parameter | vigil |\n|---|---|\n";
  for (const Entry& e : table) {
    std::string name(e.name);
    for (int i = 0; i < e.values; ++i) name += " <value>";
    out += "| `" + name + "` | " + what_vigil_does(e.use, e.doc) + " |\n";
  }
  return out;
}

}  // namespace

std::string directive_reference_markdown() {
  std::string out = "### Sections\n\n| section | vigil |\n|---|---|\n";
  for (const SectionKeyword& s : kSectionKeywords) {
    out += "| `" + std::string(s.name) + "` | " +
           what_vigil_does(s.kind == 0 ? Use::kIgnored : Use::kMapped, s.doc) + " |\n";
  }
  out += "\n### global\n\n| directive | vigil |\n|---|---|\n";
  for (const auto& k : kGlobalKeywords) {
    out += "| `" + std::string(k.name) + "` | " + what_vigil_does(k.use, k.doc) + " |\n";
  }
  out +=
      "\n### defaults, frontend, backend, listen\n\n| directive | sections | vigil |\n"
      "|---|---|---|\n";
  for (const auto& k : kProxyKeywords) {
    out += "| `" + std::string(k.name) + "` | " + sections_text(k.sections) + " | " +
           what_vigil_does(k.use, k.doc) + " |\n";
  }
  out += "\n" + param_table("server and default-server parameters",
                            std::span<const ParamKeyword<ServerParams>>(kServerKeywords));
  out += "\n" +
         param_table("bind parameters", std::span<const ParamKeyword<BindDraft>>(kBindKeywords));
  return out;
}

}  // namespace vigil::config::haproxy
