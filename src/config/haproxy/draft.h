// The haproxy.cfg importer's intermediate form: what the directives of each section said, before
// it becomes vigil's model (haproxy/build.cc), and the Parser the directive handlers report to.
// Internal to config/. One Parser per load; not thread-safe.
#pragma once

#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "config/diagnostic.h"
#include "config/haproxy/source_rules.h"
#include "config/haproxy/tokenizer.h"
#include "model/config.h"
#include "model/process.h"

namespace vigil::config::haproxy {

// Section kinds, as bits so that a keyword can name every kind it belongs to.
enum SectionKind : unsigned {
  kGlobal = 1,
  kDefaults = 2,
  kFrontend = 4,
  kBackend = 8,
  kListen = 16,
};
inline constexpr unsigned kFrontendSide = kFrontend | kListen;  // proxies that accept
inline constexpr unsigned kBackendSide = kBackend | kListen;    // proxies that have servers
std::string_view section_name(unsigned kind);                   // "frontend"

// A value and the line that set it; line 0: not set.
template <typename T>
struct Lined {
  T value{};
  int line = 0;
  explicit operator bool() const { return line > 0; }
  void set(T v, int at) {
    value = std::move(v);
    line = at;
  }
};

// The parameters of a `server` or `default-server` line that vigil maps.
struct ServerParams {
  Lined<bool> check, check_ssl, ssl, backup, disabled;
  Lined<bool> verify;  // true: verify required
  Lined<std::string> ca_file, check_sni, verifyhost, addr, crt;
  Lined<Duration> inter, fastinter, downinter, slowstart;
  Lined<int> rise, fall, weight, port;
  Lined<model::ProxyProtocol> send_proxy;  // send-proxy, send-proxy-v2, no-send-proxy
  Lined<bool> check_send_proxy;

  // Each parameter `over` sets replaces this one's.
  void overlay(const ServerParams& over);
};

// What the health check sends, as set by the last `option httpchk`, `option ssl-hello-chk`,
// `option tcp-check` (or another check option): HAProxy keeps only the last one.
enum class CheckKind { kConnect, kHttp, kSslHello, kTcpCheck, kOther };
struct CheckOption {
  CheckKind kind = CheckKind::kConnect;
  int line = 0;                          // 0: none given (HAProxy's default: a connect)
  std::string text;                      // the directive, for messages
  Lined<std::string> method, uri, host;  // option httpchk's arguments
};

// `http-check connect` / `tcp-check connect` arguments vigil maps.
struct CheckConnect {
  Lined<bool> ssl;
  Lined<int> port;
  Lined<std::string> addr, sni;
};

// `http-check` and `tcp-check` rules. HAProxy uses a proxy's own rules, or its defaults' rules when
// it has none: the first rule of a proxy replaces what it inherited.
struct HttpCheckRules {
  bool inherited = false;
  int first_line = 0;
  Lined<std::string> method, uri, host;
  Lined<std::string> expect_status;  // vigil's expected_codes syntax
  CheckConnect connect;
};
struct TcpCheckRules {
  bool inherited = false;
  int first_line = 0;
  CheckConnect connect;
};

// A backend's `stick-table`: what session_persistence takes from it.
struct StickTableDraft {
  bool source_address = false;  // type ip or ipv6: keyed by the client's address
  std::optional<Duration> expire;
  std::optional<long long> size;  // entries
  std::string text;               // the directive, for messages
};

// The `stick` rules vigil can carry out: matching and storing the client's address in the
// proxy's own table (`stick on src` is both). The directive's text, for messages.
struct StickRules {
  Lined<std::string> match, store;
};

struct BindDraft {
  int line = 0;
  std::string address;
  uint16_t port = 0;
  Lined<bool> ssl;  // TLS termination
  Lined<int> maxconn;
  Lined<bool> transparent;  // binds an address this host does not hold (freebind)
};

struct ServerDraft {
  int line = 0;
  std::string name;
  std::string host;
  std::optional<uint16_t> port;
  ServerParams params;  // default-server's, overlaid by the line's own
};

// A defaults, frontend, backend or listen section. A proxy starts as a copy of its defaults.
struct ProxyDraft {
  unsigned kind = kDefaults;
  std::string name;  // as written in haproxy.cfg
  int line = 0;      // of the section keyword
  Lined<std::string> mode;
  Lined<model::Algorithm> balance;
  Lined<Duration> timeout_connect, timeout_client, timeout_server, timeout_tunnel, timeout_check;
  Lined<int> retries, maxconn;
  CheckOption check;
  HttpCheckRules http_check;
  TcpCheckRules tcp_check;
  ServerParams default_server;
  Lined<bool> disabled;
  Lined<bool> allbackups;
  Lined<bool> tcplog;  // option tcplog: the listeners' log_connections
  Lined<std::string> default_backend;
  std::vector<Lined<std::string>> use_backends;
  std::vector<BindDraft> binds;
  std::vector<ServerDraft> servers;
  Lined<StickTableDraft> stick_table;
  StickRules stick;
  SourceRules sources;       // acl lines and tcp-request accept/reject rules: allowed_cidrs
  int self_served_line = 0;  // `stats ...` or `use-service`: HAProxy answers these itself
};

struct GlobalDraft {
  Lined<int> nbthread;
  Lined<bool> verify_none;  // ssl-server-verify none
  std::string ca_base, crt_base;
};

struct Draft {
  GlobalDraft global;
  std::vector<ProxyDraft> proxies;  // frontends, backends and listens, in file order
};

// One directive of a section, as its handler sees it.
struct Directive {
  const CfgLine* source = nullptr;
  size_t keyword_words = 1;  // words naming the directive: 1 ("bind"), 2 ("option httpchk")...
  bool negated = false;      // written with a leading "no"

  int line() const { return source->number; }
  std::span<const std::string> args() const {
    return std::span<const std::string>(source->words).subspan(keyword_words);
  }
  std::string_view arg(size_t i) const {
    return i < args().size() ? std::string_view(args()[i]) : std::string_view();
  }
  std::string keyword() const;  // "option httpchk" (without "no")
  std::string text() const;     // the whole line, shortened: "option httpchk GET /readyz"
};

// One parameter of a server or bind line: its name and the values it takes.
struct ParamUse {
  int line = 0;
  std::string_view name;
  std::span<const std::string> values;
  std::string text() const;  // "inter 5s"
};

class Parser {
 public:
  Parser(std::string file, std::vector<Diagnostic>& out) : file_(std::move(file)), out_(out) {}

  const std::string& file() const { return file_; }
  void error(int line, std::string message);
  void warning(int line, std::string message);
  // The same warning for the same line only once (settings a defaults section gives many proxies).
  void warning_once(int line, const std::string& message);

  Draft& draft() { return draft_; }

  // Values, or an error naming the directive at its line and nothing.
  std::optional<Duration> duration(int line, std::string_view what, std::string_view text);
  std::optional<int> integer(int line, std::string_view what, std::string_view text, int low,
                             int high);
  // A file name with global ca-base / crt-base applied to relative names.
  std::string ca_path(std::string_view name) const;
  std::string crt_path(std::string_view name) const;

 private:
  std::string file_;
  std::vector<Diagnostic>& out_;
  std::set<std::pair<int, std::string>> warned_;
  Draft draft_;
};

// Turns the parsed draft into vigil's model (haproxy/build.cc): pools, listeners, monitors, and
// the diagnostics about what the directives mean together.
model::Config build_config(Parser& parser);
// The process settings the global section gives (nbthread: workers); the others keep vigil's
// defaults, since haproxy.cfg has no place for them.
model::Process build_process(Parser& parser);

}  // namespace vigil::config::haproxy
