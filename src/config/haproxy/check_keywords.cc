// How a backend checks its servers: the check options (HAProxy keeps a proxy's last one) and the
// http-check and tcp-check rules. Only what the directives say is stored here; which check a
// backend ends up with is decided with its servers' parameters (haproxy/monitor.cc).
#include <algorithm>
#include <cctype>
#include <optional>

#include "base/ascii.h"
#include "config/address.h"
#include "config/haproxy/handlers.h"
#include "model/expected_codes.h"

namespace vigil::config::haproxy {
namespace {

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
  if (iequals(name, "host") && !value.empty() && std::ranges::none_of(value, [](char c) {
        return c == ' ' || std::iscntrl(static_cast<unsigned char>(c));
      })) {
    host.set(std::string(value), line);
    return;
  }
  p.warning(line, "ignored: health check header `" + shown(name) +
                      "`: vigil's HTTP checks send Host (and a bearer token when configured)");
}

template <typename Rules>
void begin_rules(Rules& rules, int line) {
  if (rules.inherited) rules = Rules{};
  if (rules.first_line == 0) rules.first_line = line;
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

}  // namespace

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

void http_check_rule(Parser&, const Directive& d, ProxyDraft& x) {
  begin_rules(x.http_check, d.line());
}

void tcp_check_rule(Parser&, const Directive& d, ProxyDraft& x) {
  begin_rules(x.tcp_check, d.line());
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
  const std::string match = lowercase(args[i]);
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

}  // namespace vigil::config::haproxy
