// What the keyword tables of haproxy.cfg share across their files: the reasons many keywords give,
// the checks of a directive's words, and the handlers the proxies' table names but another file
// holds next to the keywords of the same concern. Internal to the haproxy_*keywords.cc files.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "config/haproxy/keywords.h"

namespace vigil::config::haproxy {

inline constexpr Use kMapped = Use::kMapped;
inline constexpr Use kAccepted = Use::kAccepted;
inline constexpr Use kIgnored = Use::kIgnored;
inline constexpr Use kRefused = Use::kRefused;

// Check durations: as vigil's YAML allows (yaml_keys.h's kMaxCheckDuration).
inline constexpr Duration kMaxCheck = std::chrono::hours(24);

// Reasons shared by many keywords.
inline constexpr std::string_view kHttpOnly =
    "applies to HTTP mode only; vigil proxies TCP and passes the bytes through unchanged";
inline constexpr std::string_view kLogging =
    "vigil logs to stderr in its own format: a line per check-state change and member "
    "transition, with the reason";
inline constexpr std::string_view kNoPersistence =
    "vigil keeps a client on its member by its address only: `stick-table type ip` with `stick "
    "on src` (session_persistence), or `balance source` (algorithm source_ip)";
inline constexpr std::string_view kTuning =
    "HAProxy tuning; vigil sizes its own buffers and queues";
inline constexpr std::string_view kStats =
    "HAProxy's statistics page; vigil's status page, /metrics and API are on admin.listen "
    "(127.0.0.1:8404 by default)";
inline constexpr std::string_view kBindTls = "applies to TLS termination, which vigil does not do";

// At most 60 characters, control characters as '?': user text quoted in a message.
std::string shown(std::string_view text);
// False, after an error saying the directive needs `expected`, when it has fewer than `n` words.
bool needs_args(Parser& p, const Directive& d, size_t n, std::string_view expected);
// A warning when the directive has more than the `used` words its handler read.
void extra_args(Parser& p, const Directive& d, size_t used);

// Frontends (haproxy/frontend_keywords.cc).
void proxy_bind(Parser& p, const Directive& d, ProxyDraft& x);
void proxy_default_backend(Parser& p, const Directive& d, ProxyDraft& x);
void proxy_use_backend(Parser& p, const Directive& d, ProxyDraft& x);

// Backends (haproxy/backend_keywords.cc).
void proxy_balance(Parser& p, const Directive& d, ProxyDraft& x);
void proxy_server(Parser& p, const Directive& d, ProxyDraft& x);
void proxy_default_server(Parser& p, const Directive& d, ProxyDraft& x);

// Session persistence (haproxy/stick_keywords.cc).
void proxy_stick_table(Parser& p, const Directive& d, ProxyDraft& x);
void proxy_stick(Parser& p, const Directive& d, ProxyDraft& x);

// Health checks (haproxy/check_keywords.cc).
void proxy_httpchk(Parser& p, const Directive& d, ProxyDraft& x);
void proxy_ssl_hello_chk(Parser& p, const Directive& d, ProxyDraft& x);
void proxy_tcp_check_option(Parser& p, const Directive& d, ProxyDraft& x);
void proxy_other_check(Parser& p, const Directive& d, ProxyDraft& x);
void http_check_rule(Parser& p, const Directive& d, ProxyDraft& x);
void tcp_check_rule(Parser& p, const Directive& d, ProxyDraft& x);
void proxy_http_check_connect(Parser& p, const Directive& d, ProxyDraft& x);
void proxy_tcp_check_connect(Parser& p, const Directive& d, ProxyDraft& x);
void proxy_http_check_send(Parser& p, const Directive& d, ProxyDraft& x);
void proxy_http_check_expect(Parser& p, const Directive& d, ProxyDraft& x);

}  // namespace vigil::config::haproxy
