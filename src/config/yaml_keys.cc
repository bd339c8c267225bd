// Key tables of the top level, admin, listeners, pools and members (health_monitor and tls are in
// monitor_keys.cc). Each key: name, type, default, meaning (all shown in the docs) and reader.
#include "config/yaml_keys.h"

#include <boost/url/parse.hpp>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <utility>

#include "base/ascii.h"
#include "config/address.h"
#include "config/haproxy_names.h"
#include "config/suggest.h"
#include "net/cidr.h"
#include "net/unix_socket.h"

namespace vigil::config {
namespace {

using model::Admin;
using model::Listener;
using model::Member;

void read_bind(YamlReader& r, const Field& f, Listener& l) {
  auto text = r.scalar(f, "[address]:port");
  if (!text) return;
  auto bind = parse_bind(*text);
  if (!bind) return r.error(f.line, f.path() + ": " + bind.error().message);
  l.bind_address = bind->address;
  l.port = bind->port;
}

void read_redirect_from(YamlReader& r, const Field& f, Listener& l) {
  auto text = r.scalar(f, "address:port");
  if (!text) return;
  auto at = parse_redirect_from(*text);
  if (!at) return r.error(f.line, f.path() + ": " + at.error().message);
  l.redirect_from = model::RedirectFrom{.address = at->address, .port = at->port};
}

// An absolute http or https URL without a query or fragment; a trailing '/' is dropped.
void read_octavia_endpoint(YamlReader& r, const Field& f, Admin& a) {
  const auto text = r.scalar(f, "a URL");
  if (!text) return;
  const auto url = boost::urls::parse_absolute_uri(*text);
  if (!url || (url->scheme() != "http" && url->scheme() != "https") || !url->has_authority() ||
      url->host().empty() || url->has_query() || url->has_fragment()) {
    r.error(f.line, "admin.octavia_endpoint: \"" + *text +
                        "\" is no http:// or https:// URL without a query "
                        "(https://cloud.example/load-balancer)");
    return;
  }
  a.octavia_endpoint = *text;
  while (a.octavia_endpoint.ends_with('/')) a.octavia_endpoint.pop_back();
}

void read_admin_listen(YamlReader& r, const Field& f, Admin& a) {
  auto text = r.scalar(f, "[address]:port");
  if (!text) return;
  auto bind = parse_bind(*text);
  if (!bind) return r.error(f.line, f.path() + ": " + bind.error().message);
  a.listen = *text;
}

void read_admin_socket(YamlReader& r, const Field& f, Admin& a) {
  auto text = r.scalar(f, "a path");
  if (!text) return;
  if (auto ok = net::check_socket_path(*text); !ok) {
    return r.error(f.line, f.path() + ": \"" + *text + "\" " + ok.error().message);
  }
  a.socket = *text;
}

void read_host(YamlReader& r, const Field& f, std::string& out) {
  auto text = r.scalar(f, "an IP address or host name");
  if (!text) return;
  auto host = parse_host(*text);
  if (!host) return r.error(f.line, f.path() + ": " + host.error().message);
  out = *host;
}

// "round_robin, least_connections or source_ip"
constexpr model::NameList kAlgorithmChoices = model::name_list<model::Algorithm>(", ", " or ");

void read_algorithm(YamlReader& r, const Field& f, PoolDraft& p) {
  auto text = r.scalar(f, kAlgorithmChoices);
  if (!text) return;
  const std::string word = lowercase(*text);
  if (auto algorithm = model::parse<model::Algorithm>(word)) {
    p.algorithm = *algorithm;
    return;
  }
  std::string hint = did_you_mean(word, model::names_of(model::spellings<model::Algorithm>()));
  // HAProxy's names for the same policies, for a better hint than edit distance gives.
  if (auto haproxy = model::value_in<model::Algorithm>(kHaproxyAlgorithmNames, word)) {
    hint = " (did you mean \"" + std::string(model::to_string(*haproxy)) + "\"?)";
  }
  r.error(f.line, f.path() + ": unknown algorithm " + YamlReader::describe(f.value) + "; use " +
                      std::string(kAlgorithmChoices.view()) + hint);
}

// "round_robin | least_connections | source_ip", for the docs.
constexpr model::NameList kAlgorithmDocs = model::name_list<model::Algorithm>(" | ", " | ");

// "tls, always or never"
constexpr model::NameList kReplayChoices = model::name_list<model::Replay>(", ", " or ");
constexpr model::NameList kReplayDocs = model::name_list<model::Replay>(" | ", " | ");

// One of an enum's spellings (or of `aliases`), or an error at the field's line naming the
// choices, with a did-you-mean.
template <typename E>
std::optional<E> read_choice(YamlReader& r, const Field& f, std::string_view what,
                             const model::NameList& choices,
                             std::initializer_list<std::pair<std::string_view, E>> aliases = {}) {
  auto text = r.scalar(f, choices);
  if (!text) return std::nullopt;
  if (auto value = model::parse<E>(*text)) return value;
  for (const auto& [alias, value] : aliases) {
    if (*text == alias) return value;
  }
  r.error(f.line, f.path() + ": unknown " + std::string(what) + " " +
                      YamlReader::describe(f.value) + "; use " + std::string(choices.view()) +
                      did_you_mean(*text, model::names_of(model::spellings<E>())));
  return std::nullopt;
}

// "close or queue"
constexpr model::NameList kAtLimitChoices = model::name_list<model::AtLimit>(", ", " or ");
constexpr model::NameList kAtLimitDocs = model::name_list<model::AtLimit>(" | ", " | ");

void read_at_limit(YamlReader& r, const Field& f, Listener& l) {
  if (auto v = read_choice<model::AtLimit>(r, f, "at_limit", kAtLimitChoices)) l.at_limit = *v;
}

void read_replay(YamlReader& r, const Field& f, PoolDraft& p) {
  if (auto v = read_choice<model::Replay>(r, f, "replay mode", kReplayChoices)) p.replay = *v;
}

// "off, v1 or v2"
constexpr model::NameList kProxyProtocolChoices =
    model::name_list<model::ProxyProtocol>(", ", " or ");
constexpr model::NameList kProxyProtocolDocs = model::name_list<model::ProxyProtocol>(" | ", " | ");

std::optional<model::ProxyProtocol> read_proxy_protocol(YamlReader& r, const Field& f) {
  // `proxy_protocol: false` (or no) says off as well as `off` does.
  return read_choice<model::ProxyProtocol>(
      r, f, "PROXY protocol version", kProxyProtocolChoices,
      {{"false", model::ProxyProtocol::kOff}, {"no", model::ProxyProtocol::kOff}});
}

// A list of networks, each checked at its own line; `if_empty` says what to write instead.
void read_cidrs(YamlReader& r, const Field& f, std::vector<std::string>& out,
                std::string_view if_empty, size_t most) {
  if (!r.expect_list(f, "a list of networks (CIDR), like [10.0.0.0/8, \"::1\"]")) return;
  for (const YamlNode& item : f.value.items()) {
    const int line = YamlReader::line_of(item, f.line);
    if (!item.is_scalar()) {
      r.error(line, f.path() + ": expected a network (CIDR), got " + YamlReader::describe(item));
      continue;
    }
    if (auto cidr = net::Cidr::parse(item.scalar()); !cidr) {
      r.error(line, f.path() + ": " + cidr.error().message);
    }
    // Kept even when bad, which is reported already: not as a missing list on top of it.
    out.push_back(item.scalar());
  }
  if (f.value.items().empty()) r.error(f.line, f.path() + ": empty; " + std::string(if_empty));
  if (out.size() > most) {
    r.error(f.line, f.path() + ": " + std::to_string(out.size()) + " networks; at most " +
                        std::to_string(most));
  }
}

void read_trusted_sources(YamlReader& r, const Field& f, Listener& l) {
  read_cidrs(r, f, l.trusted_sources, "name the upstream load balancers' addresses",
             model::kMaxAllowedCidrs);
}

void read_allowed_cidrs(YamlReader& r, const Field& f, Listener& l) {
  read_cidrs(r, f, l.allowed_cidrs, "leave the key out to let every client in",
             model::kMaxAllowedCidrs);
}

// "text or json"
constexpr model::NameList kLogFormatChoices = model::name_list<model::LogFormat>(", ", " or ");
constexpr model::NameList kLogFormatDocs = model::name_list<model::LogFormat>(" | ", " | ");

void read_log_format(YamlReader& r, const Field& f, model::Log& l) {
  if (auto v = read_choice<model::LogFormat>(r, f, "log format", kLogFormatChoices)) l.format = *v;
}

template <typename T>
void read_list(YamlReader& r, const Field& f, const Section<T>& section, std::vector<T>& out) {
  if (!r.expect_list(f, "a list of " + std::string(section.name) + "s")) return;
  for (const YamlNode& item : f.value.items()) {
    T value;
    const int line = YamlReader::line_of(item, f.line);
    value.where = r.at(line);
    if (r.read_map(item, line, section, value)) out.push_back(std::move(value));
  }
}

void read_pools(YamlReader& r, const Field& f, ConfigDraft& c) {
  std::vector<PoolDraft> pools;
  read_list(r, f, pool_section(), pools);
  for (PoolDraft& p : pools) {
    if (p.monitor_none) c.monitor_opt_outs.push_back(p.name);
    c.pools.push_back(std::move(static_cast<model::Pool&>(p)));
  }
}

constexpr KeySpec<model::Peer> kPeerKeys[] = {
    {"name", "name", "",
     "The node's name; `peer_name` (default: the host's name) says which entry is this node.",
     [](YamlReader& r, const Field& f, model::Peer& p) { r.set_name(f, p.name); }, true},
    {"address", "IP address", "",
     "The address the node's peer sync listens on, and the others connect to.",
     [](YamlReader& r, const Field& f, model::Peer& p) {
       auto text = r.scalar(f, "an IP address");
       if (!text) return;
       auto host = parse_host(*text);
       if (!host || !(is_ipv4_literal(*host) || is_ipv6_literal(*host))) {
         return r.error(f.line, f.path() + ": expected an IP address, got \"" + *text + "\"");
       }
       p.address = *host;
     },
     true},
    {"port", "integer 1..65535", "", "The peer sync's TCP port on that address.",
     [](YamlReader& r, const Field& f, model::Peer& p) { r.set_int(f, p.port, 1, 65535); }, true},
};

constexpr KeySpec<model::PeersAuth> kPeersAuthKeys[] = {
    {"token_file", "path", "",
     "File holding the token every node of `peers` shares: each side of a peer connection "
     "proves it holds it (HMAC-SHA256 over both sides' random nonces) before any session "
     "is sent. The sync itself is not encrypted: keep it on the nodes' own network. Set "
     "`token_file` or `tls`, not both.",
     [](YamlReader& r, const Field& f, model::PeersAuth& a) { r.set_string(f, a.token_file); }},
    {"tls", "map", "",
     "Mutual TLS instead of a token: each side presents its certificate and verifies the "
     "other's against `ca`, and a node's certificate must name it; see `peers_auth.tls`.",
     [](YamlReader& r, const Field& f, model::PeersAuth& a) {
       model::PeerTls tls{.where = r.at(f.line)};
       if (r.read_map(f.value, f.line, peer_tls_section(), tls)) a.tls = std::move(tls);
     }},
};

constexpr KeySpec<model::PeerTls> kPeerTlsKeys[] = {
    {"cert", "path", "",
     "This node's certificate (PEM, with its intermediates), signed by `ca`. It must name the "
     "node: a DNS SAN equal to its `peers[]` name, or its CN when it has no DNS SAN.",
     [](YamlReader& r, const Field& f, model::PeerTls& t) { r.set_string(f, t.cert); }, true},
    {"key", "path", "", "The certificate's private key (PEM).",
     [](YamlReader& r, const Field& f, model::PeerTls& t) { r.set_string(f, t.key); }, true},
    {"ca", "path", "",
     "The CA (PEM) that signed every node's certificate; a peer whose certificate it did not "
     "sign, or that presents none, is refused.",
     [](YamlReader& r, const Field& f, model::PeerTls& t) { r.set_string(f, t.ca); }, true},
};

void read_peers(YamlReader& r, const Field& f, ConfigDraft& c) {
  read_list(r, f, peer_section(), c.process.peers);
}

constexpr KeySpec<ConfigDraft> kTopKeys[] = {
    {"name", "name", "the file's stem", "The load balancer's name (its id is derived from it).",
     [](YamlReader& r, const Field& f, ConfigDraft& c) { r.set_name(f, c.name); }},
    {"admin", "map", "", "The admin API, /metrics and the status page; see `admin`.",
     [](YamlReader& r, const Field& f, ConfigDraft& c) {
       r.read_map(f.value, f.line, admin_section(), c.process.admin);
     }},
    {"log", "map", "", "How vigil writes its log; see `log`.",
     [](YamlReader& r, const Field& f, ConfigDraft& c) {
       r.read_map(f.value, f.line, log_section(), c.process.log);
     }},
    {"workers", "integer 0..1024", "0", "Proxy worker threads; 0 starts one per CPU core.",
     [](YamlReader& r, const Field& f, ConfigDraft& c) {
       r.set_int(f, c.process.workers, 0, 1024);
     }},
    {"shutdown_grace", "duration", "30s",
     "On SIGTERM (and after `vigil upgrade`) the listeners close at once and established "
     "sessions go on for up to this long, then are cut; 0s cuts them at once. A second SIGTERM "
     "or a SIGINT stops at once.",
     [](YamlReader& r, const Field& f, ConfigDraft& c) {
       r.set_duration_or_zero(f, c.process.shutdown_grace, std::chrono::hours(24));
     }},
    {"peers", "list of maps", "",
     "The vigil nodes of a pair or fleet, this one too: each streams its client sessions to the "
     "others, and a node that takes an address over or outlives a node tickles the lost node's "
     "sessions so that their clients reconnect at once (docs/ha.md); see `peers[]`.",
     read_peers},
    {"peers_auth", "map", "", "How the nodes of `peers` prove who they are; see `peers_auth`.",
     [](YamlReader& r, const Field& f, ConfigDraft& c) {
       r.read_map(f.value, f.line, peers_auth_section(), c.process.peers_auth);
     }},
    {"peer_name", "name", "the host's name", "Which entry of `peers` is this node.",
     [](YamlReader& r, const Field& f, ConfigDraft& c) { r.set_name(f, c.process.peer_name); }},
    {"listeners", "list of maps", "",
     "The addresses vigil accepts connections on; see `listeners[]`.",
     [](YamlReader& r, const Field& f, ConfigDraft& c) {
       read_list(r, f, listener_section(), c.listeners);
     }},
    {"pools", "list of maps", "", "The backends; see `pools[]`.", read_pools},
};

// "process, listener, pool or member"
constexpr model::NameList kMetricsScopeChoices =
    model::name_list<model::MetricsScope>(", ", " or ");

// `auto` (every scope for a vigil of few members, process and pool above that; decided at each
// scrape by admin::resolve_scopes), or the list of scopes every scrape without `scope=` gets.
void read_metrics_scopes(YamlReader& r, const Field& f, model::AdminMetrics& m) {
  if (f.value.is_scalar() && f.value.scalar() == "auto") {
    m.scopes = model::AdminMetrics{}.scopes;
    m.auto_scopes = true;
    return;
  }
  if (!r.expect_list(f, "auto or a list of scopes, like [process, pool]")) return;
  m.auto_scopes = false;
  m.scopes.clear();
  for (const YamlNode& item : f.value.items()) {
    const int line = YamlReader::line_of(item, f.line);
    const auto scope =
        item.is_scalar() ? model::parse<model::MetricsScope>(item.scalar()) : std::nullopt;
    if (!scope) {
      r.error(line,
              f.path() + ": unknown scope " + YamlReader::describe(item) + "; use " +
                  std::string(kMetricsScopeChoices.view()) +
                  " (or `scopes: auto` instead of a list)" +
                  (item.is_scalar()
                       ? did_you_mean(item.scalar(),
                                      model::names_of(model::spellings<model::MetricsScope>()))
                       : ""));
      continue;
    }
    m.scopes.push_back(*scope);
  }
  if (f.value.items().empty()) r.error(f.line, f.path() + ": empty; name at least one scope");
}

constexpr KeySpec<model::AdminMetrics> kAdminMetricsKeys[] = {
    {"member_histograms", "boolean", "false",
     "Whether a scrape of `/metrics` that does not ask (`?histograms=member`, or "
     "`?name[]=vigil_member_check_duration_seconds`) gets the members' check-duration "
     "histograms: 15 series a member, a third of a scrape's size (docs/metrics.md, \"How "
     "much\"). Takes effect on reload.",
     [](YamlReader& r, const Field& f, model::AdminMetrics& m) {
       r.set_bool(f, m.member_histograms);
     }},
    {"scopes", "auto, or list of process | listener | pool | member", "auto",
     "The scopes a scrape of `/metrics` without `?scope=` gets. `auto`: all four while vigil "
     "runs at most 2,000 members in all, `process` and `pool` only above that (at 10,000 load "
     "balancers of three members all four are 224 MB a scrape, `[process, pool]` 18 MB; "
     "docs/metrics.md, \"How much\"), and `vigil_metrics_members_left_out` is then 1 and "
     "the alert `VigilMemberMetricsLeftOut` fires unless a job asks for `?scope=member`. A list: "
     "exactly those scopes, whatever the size. Takes effect on reload.",
     read_metrics_scopes},
};

constexpr KeySpec<Admin> kAdminKeys[] = {
    {"listen", "[address]:port", "127.0.0.1:8404",
     "Address of the REST API, /metrics and the status page. Keep it on loopback unless the "
     "token is set and the network is trusted.",
     read_admin_listen},
    {"socket", "path", "",
     "A Unix socket that serves the same API as `listen`, for the local CLI (`vigil ... --admin "
     "unix:PATH`; the CLI takes it by itself when this config names it): mode 0660, group "
     "`vigil` when that group exists (else vigil's own group). The token is still required; "
     "what the socket adds is that the kernel names the user who set an override (`set by CLI "
     "(alice)`), whatever the client claims. A stale socket there is replaced; anything else "
     "there is an error. Removed at a clean stop; handed over by `vigil upgrade`. Takes a "
     "restart. `/run/vigil/admin.sock` under systemd (RuntimeDirectory=vigil).",
     read_admin_socket},
    {"token_file", "path", "",
     "File holding the read-write API token: accepted by every route, and required by every "
     "call that changes state; without it the API and CLI refuse such calls. See "
     "docs/api.md, Authentication.",
     [](YamlReader& r, const Field& f, Admin& a) { r.set_string(f, a.token_file); }},
    {"read_token_file", "path", "",
     "File holding a read-only token: accepted for every GET (`/metrics`, `/v1/status`, the "
     "status page, the Octavia API's reads, `vigil members`/`status`) and refused with 403 for "
     "anything that changes state. For Prometheus and people who only watch; must differ from "
     "the token of `token_file`.",
     [](YamlReader& r, const Field& f, Admin& a) { r.set_string(f, a.read_token_file); }},
    {"state_file", "path", "",
     "Where objects created through the API, and members' runtime overrides (`vigil member "
     "drain`, ...; see docs/operations.md), are kept (written atomically).",
     [](YamlReader& r, const Field& f, Admin& a) { r.set_string(f, a.state_file); }},
    {"octavia_project", "text", "",
     "The Octavia API's project_id for a load balancer created without one: when the request "
     "has no `X-Project-Id` header (which Keystone's middleware sets) and its body no "
     "`project_id`. The config file's objects show it too. Empty: `\"\"`. Takes effect on "
     "reload.",
     [](YamlReader& r, const Field& f, Admin& a) { r.set_string(f, a.octavia_project); }},
    {"octavia_endpoint", "URL", "the request's `http://` and `Host`",
     "The Octavia API's public URL when a proxy publishes it elsewhere "
     "(`https://cloud.example/load-balancer`): what the links of its lists (`next`, "
     "`previous`) and its version document start with, as Octavia's `[api_settings] "
     "api_base_uri`. Clients such as gophercloud and openstacksdk follow those links as given. "
     "Takes effect on reload.",
     read_octavia_endpoint},
    {"trust_forwarded_headers", "boolean", "false",
     "Whether the Octavia API's links follow what a reverse proxy in front says the client used: "
     "RFC 7239 `Forwarded` (`proto`, `host`), else `X-Forwarded-Proto` and `X-Forwarded-Host`, "
     "and `X-Forwarded-Prefix` in front of the path, as Octavia reads them with `[oslo_middleware] "
     "enable_proxy_headers_parsing`. Off, as Octavia's: any client can send them, so turn it on "
     "only when every request comes through a proxy that sets or strips them. "
     "`octavia_endpoint`, when set, wins. Takes effect on reload.",
     [](YamlReader& r, const Field& f, Admin& a) { r.set_bool(f, a.trust_forwarded_headers); }},
    {"octavia_pagination_max_limit", "integer, 1 to 1000000", "1000",
     "The most objects one answer of the Octavia API's lists holds, as Octavia's `[api_settings] "
     "pagination_max_limit`: a list without `limit` holds at most this many and links to the "
     "next page, and a larger `limit` is cut to it (`limit=infinite` still gives every object). "
     "Set it to the value of the Octavia the clients also talk to, so that their pages are the "
     "same size on both. Takes effect on reload.",
     [](YamlReader& r, const Field& f, Admin& a) {
       r.set_int(f, a.octavia_pagination_max_limit, 1, 1'000'000);
     }},
    {"store", "map", "{type: file}",
     "Where the objects made through the Octavia API live: this node's `state_file`, or etcd, "
     "shared by every node of a pair or fleet; see `admin.store`.",
     read_store},
    {"metrics", "map", "{member_histograms: false, scopes: auto}",
     "What `GET /metrics` serves when a scrape does not say; see `admin.metrics`.",
     [](YamlReader& r, const Field& f, Admin& a) {
       r.read_map(f.value, f.line, admin_metrics_section(), a.metrics);
     }},
};

constexpr KeySpec<model::Log> kLogKeys[] = {
    {"format", kLogFormatDocs, model::to_string(model::LogFormat::kText),
     "`text`: a line of text per event (after a UTC time and the level, or the journal's "
     "priority prefix when stderr is the journal). `json`: one JSON object a line, with `time`, "
     "`level`, `event` and `message`, and an event's own fields (`pool`, `member`, `reason`, "
     "counts...); the journal's prefix stays. Takes effect at start and on reload.",
     read_log_format},
};

constexpr KeySpec<Listener> kListenerKeys[] = {
    {"name", "name", "", "Unique among listeners.",
     [](YamlReader& r, const Field& f, Listener& l) { r.set_name(f, l.name); }, true},
    {"bind", "[address]:port", "",
     "`:6443` or `*:6443` (every address), `127.0.0.1:6443`, `[::1]:6443`; port 0 lets the "
     "kernel pick (tests). Two listeners may not bind the same address and port.",
     read_bind, true},
    {"pool", "name", "", "The pool (defined in this file) that gets the connections.",
     [](YamlReader& r, const Field& f, Listener& l) { r.set_name(f, l.pool); }, true},
    {"max_connections", "integer 1..10000000", "50000",
     "Connections held at once; one more is closed at once (a quick retry beats a hang) and "
     "counted in `vigil_listener_rejected_connections_total`.",
     [](YamlReader& r, const Field& f, Listener& l) {
       r.set_int(f, l.max_connections, 1, 10'000'000);
     }},
    {"at_limit", kAtLimitDocs, model::to_string(model::AtLimit::kClose),
     "What a new connection meets while the listener holds `max_connections`: `close`, closed "
     "at once and counted in `vigil_listener_rejected_connections_total` (a quick retry beats "
     "a hang); `queue`, left in the kernel's backlog, not accepted until a session ends, then "
     "served in turn, as HAProxy's `maxconn` and Octavia's `connection_limit` do (the Octavia "
     "API's listeners queue).",
     read_at_limit},
    {"idle_timeout", "duration", "1h",
     "A session with no byte either way for this long is closed. Watches are long-lived: do not "
     "copy HAProxy's 20 s client timeout.",
     [](YamlReader& r, const Field& f, Listener& l) {
       r.set_duration(f, l.idle_timeout, kMaxIdleTimeout);
     }},
    {"member_idle_timeout", "duration", "idle_timeout",
     "A session whose member side has moved no byte for this long is closed: Octavia's "
     "`timeout_member_data`, HAProxy's `timeout server`. Every byte a session moves crosses "
     "the member side, so a session ends at the shorter of this and `idle_timeout`. At most 30 "
     "days. A reload applies it to new sessions; established ones keep the timeout they began "
     "with.",
     [](YamlReader& r, const Field& f, Listener& l) {
       r.set_duration(f, l.member_idle_timeout, kMaxIdleTimeout);
     }},
    {"dead_peer_timeout", "duration", "60s",
     "A client that stops acknowledging (or answering keepalive probes) for this long is "
     "dropped: TCP keepalive plus TCP_USER_TIMEOUT on the client leg.",
     [](YamlReader& r, const Field& f, Listener& l) {
       r.set_duration(f, l.dead_peer_timeout, kMaxCheckDuration);
     }},
    {"freebind", "boolean", "false",
     "Bind the address even when this host does not hold it yet (IP_FREEBIND): the standby of "
     "a keepalived pair listens on the virtual address before VRRP moves it here (docs/ha.md).",
     [](YamlReader& r, const Field& f, Listener& l) { r.set_bool(f, l.freebind); }},
    {"accept_proxy", "bool", "false",
     "Every connection starts with a PROXY protocol header (v1 or v2, told apart by its first "
     "bytes) from an upstream load balancer (HAProxy's accept-proxy): the client address it "
     "carries is the one vigil logs, hashes for `source_ip` and passes on with "
     "`proxy_protocol`. Needs `trusted_sources`. A connection from elsewhere, a malformed "
     "header, or none within `proxy_header_timeout`, is closed (logged at most every 10 s).",
     [](YamlReader& r, const Field& f, Listener& l) { r.set_bool(f, l.accept_proxy); }},
    {"trusted_sources", "list of CIDRs", "",
     "The addresses allowed to send a PROXY header (`10.0.0.0/24`, `\"fd00::5\"`): the "
     "upstream load balancers. Required with `accept_proxy`, without a default: a default of "
     "anywhere would let any client claim any address, and one of loopback would refuse every "
     "real upstream; an IPv4 network also matches its hosts' IPv4-mapped IPv6 addresses.",
     read_trusted_sources},
    {"allowed_cidrs", "list of CIDRs", "",
     "Only clients from these networks (`10.0.0.0/8`, `\"fd00::/8\"`, an address alone) reach "
     "a member, as Octavia's listener field: any other connection is closed as soon as it is "
     "accepted, before a member is picked, and counted in "
     "`vigil_listener_connections_refused_total{reason=\"allowed_cidrs\"}`. Left out: every "
     "client. Checked on the connection's own address (with `accept_proxy`, the upstream's, "
     "not the header's); an IPv4 network also matches its hosts' IPv4-mapped IPv6 addresses. "
     "At most 1,000 networks. A reload changes it without cutting established sessions.",
     read_allowed_cidrs},
    {"proxy_header_timeout", "duration", "3s",
     "With `accept_proxy`: a connection whose complete PROXY header has not arrived this long "
     "after it was accepted is closed; an upstream load balancer sends it at once.",
     [](YamlReader& r, const Field& f, Listener& l) {
       r.set_duration(f, l.proxy_header_timeout, kMaxCheckDuration);
     }},
    {"log_connections", "boolean", "false",
     "Log one line per session as it ends (like HAProxy's `option tcplog`): client, listener, "
     "member, connect time, duration, bytes each way and how it ended. Written by the control "
     "thread from a bounded ring per worker, never on the forwarding path; when a ring is full, "
     "records are dropped and counted (docs/operations.md).",
     [](YamlReader& r, const Field& f, Listener& l) { r.set_bool(f, l.log_connections); }},
    {"redirect_from", "address:port", "",
     "Co-location with a process that holds this port on every address, as kube-apiserver "
     "holds `*:6443` on a master (`\"192.0.2.10:6443\"`, `\"[2001:db8::10]:6443\"`): while "
     "the listener serves and its pool has a member vigil would send a new connection to, an "
     "nftables redirect (nat prerouting for remote clients, output for this host's own) sends "
     "tcp to this address and port to the listener's port; otherwise there is no redirect and "
     "the address's own process answers. The rule lives in a table the kernel removes when "
     "vigil exits, even killed. Needs `CAP_NET_ADMIN` and a listener on every address "
     "(`bind: \":9445\"`, or `0.0.0.0` for an IPv4 address alone): a redirected connection "
     "arrives at the receiving interface's own address, or at loopback from this host "
     "(docs/kubernetes.md).",
     read_redirect_from},
};

constexpr KeySpec<PoolDraft> kPoolKeys[] = {
    {"name", "name", "", "Unique among pools.",
     [](YamlReader& r, const Field& f, PoolDraft& p) { r.set_name(f, p.name); }, true},
    {"algorithm", kAlgorithmDocs, model::to_string(model::Algorithm::kRoundRobin),
     "How a new connection picks a member: in turn (by weight), the member with the fewest "
     "sessions, or by a hash of the client's IP address.",
     read_algorithm},
    {"connect_timeout", "duration", "1s",
     "How long a connect to a member may take before vigil tries another (LAN backends answer "
     "in milliseconds).",
     [](YamlReader& r, const Field& f, PoolDraft& p) {
       r.set_duration(f, p.connect_timeout, kMaxCheckDuration);
     }},
    {"retries", "integer 0..10", "3",
     "Further connect attempts after a refused or timed-out one, each on another member when "
     "there is one.",
     [](YamlReader& r, const Field& f, PoolDraft& p) { r.set_int(f, p.retries, 0, 10); }},
    {"fail_open", "bool", "true",
     "When no member is usable, route to those that still take connections (logged loudly) "
     "rather than refuse every connection; never to one whose last check was refused or got no "
     "answer.",
     [](YamlReader& r, const Field& f, PoolDraft& p) { r.set_bool(f, p.fail_open); }},
    {"hedge_after", "duration, 0 disables", "200ms",
     "When a connect has not completed after this, a second one starts to another member and "
     "the first to complete is used (no client byte is sent before). At most about one new "
     "connection in ten is hedged.",
     [](YamlReader& r, const Field& f, PoolDraft& p) {
       r.set_duration_or_zero(f, p.hedge_after, kMaxCheckDuration);
     }},
    {"slow_start", "duration, 0 disables", "0s",
     "A member that comes back after being down gets a share of new connections that grows "
     "from almost nothing to its full weight over this long, so a cold API server is not hit "
     "by a third of all clients at once. Not applied at start-up.",
     [](YamlReader& r, const Field& f, PoolDraft& p) {
       r.set_duration_or_zero(f, p.slow_start, kMaxCheckDuration);
     }},
    {"first_byte_timeout", "duration, 0 disables", "1s",
     "A member that sends nothing back this long after the client's first bytes reached it (a "
     "stopped process whose kernel still accepts), or that closes or resets before its first "
     "byte, is taken out like one that refused the connect and checked at once; the session "
     "moves to another member when `replay` allows. A TLS API server answers a ClientHello in "
     "milliseconds. Server-first protocols (SSH) are not affected: the clock starts only when "
     "the client has sent something.",
     [](YamlReader& r, const Field& f, PoolDraft& p) {
       r.set_duration_or_zero(f, p.first_byte_timeout, kMaxCheckDuration);
     }},
    {"replay", kReplayDocs, model::to_string(model::Replay::kTls),
     "When `first_byte_timeout` fires (or the member resets first), whether the client's first "
     "flight (up to 16 KiB, kept until the member's first byte) is sent again to another "
     "member: `tls` only when it is a TLS ClientHello, on which no server acts before the "
     "handshake; `always` for any protocol (only when a repeated request is harmless); "
     "`never`: the member is still reported, the session is not moved.",
     read_replay},
    {"proxy_protocol", kProxyProtocolDocs, model::to_string(model::ProxyProtocol::kOff),
     "Write a PROXY protocol header (HAProxy's send-proxy and send-proxy-v2) to the member "
     "before the client's first byte, on every connection (replays and hedges too), carrying "
     "the client's address (or the one `accept_proxy` learned) and vigil's listener address: "
     "for members that must see clients' real addresses (OpenShift routers with "
     "ROUTER_USE_PROXY_PROTOCOL, NGINX `proxy_protocol`). A member's own `proxy_protocol` "
     "overrides it. The members must expect it: to one that does not, the header is garbage.",
     [](YamlReader& r, const Field& f, PoolDraft& p) {
       if (auto v = read_proxy_protocol(r, f)) p.proxy_protocol = *v;
     }},
    {"shutdown_sessions_on_down", "bool", "true",
     "Close the sessions of a member marked ERROR because it stopped answering, so long-lived "
     "clients (watches) reconnect through a healthy member at once. A member that still answers "
     "its checks (a failing /readyz) keeps its sessions until it closes them.",
     [](YamlReader& r, const Field& f, PoolDraft& p) {
       r.set_bool(f, p.shutdown_sessions_on_down);
     }},
    {"dead_peer_timeout", "duration", "10s",
     "A member that stops acknowledging (or answering keepalive probes) for this long has its "
     "session dropped: TCP keepalive plus TCP_USER_TIMEOUT on the backend leg.",
     [](YamlReader& r, const Field& f, PoolDraft& p) {
       r.set_duration(f, p.dead_peer_timeout, kMaxCheckDuration);
     }},
    {"session_persistence", "map", "",
     "Keep a client on one member while others come and go; see "
     "`session_persistence`. Absent: each connection is placed by `algorithm` alone.",
     read_session_persistence},
    {"health_monitor", "map, or none", "",
     "How members are checked; see `health_monitor`. Absent: members are NO_MONITOR and "
     "`vigil check` warns; `none` (or `{type: none}`) opts out without the warning.",
     read_health_monitor},
    {"members", "list of maps", "", "The backends; see `members[]`.",
     [](YamlReader& r, const Field& f, PoolDraft& p) {
       read_list(r, f, member_section(), p.members);
     }},
    {"members_from", "map", "",
     "Members from an API as well: `{kubernetes: {service: default/kubernetes}}` follows the "
     "cluster's API servers; see `members_from.kubernetes`. `members:` are then the bootstrap "
     "set.",
     read_members_from},
};

constexpr KeySpec<Member> kMemberKeys[] = {
    {"name", "name", "", "Unique within the pool.",
     [](YamlReader& r, const Field& f, Member& m) { r.set_name(f, m.name); }, true},
    {"address", "IP address or host name", "",
     "Where the member listens. A host name is looked up off the control thread when the member is "
     "added; until it resolves the member is ERROR (\"DNS: ...\") and gets no traffic, and a "
     "failed name is asked again every 5 s.",
     [](YamlReader& r, const Field& f, Member& m) { read_host(r, f, m.address); }, true},
    {"port", "integer 1..65535", "", "The member's port.",
     [](YamlReader& r, const Field& f, Member& m) { r.set_int(f, m.port, 1, 65535); }, true},
    {"weight", "integer 0..256", "1",
     "Share of new connections relative to the other members; 0 drains the member.",
     [](YamlReader& r, const Field& f, Member& m) { r.set_int(f, m.weight, 0, 256); }},
    {"backup", "bool", "false", "Used only when no non-backup member is usable.",
     [](YamlReader& r, const Field& f, Member& m) { r.set_bool(f, m.backup); }},
    {"enabled", "bool", "true", "false: the member gets no traffic and is not checked (OFFLINE).",
     [](YamlReader& r, const Field& f, Member& m) { r.set_bool(f, m.enabled); }},
    {"monitor_address", "IP address or host name", "address",
     "Address the health checks go to, when not the member's address.",
     [](YamlReader& r, const Field& f, Member& m) { read_host(r, f, m.monitor_address); }},
    {"monitor_port", "integer 1..65535", "port",
     "Port the health checks go to, when not the member's port.",
     [](YamlReader& r, const Field& f, Member& m) { r.set_int(f, m.monitor_port, 1, 65535); }},
    {"proxy_protocol", kProxyProtocolDocs, "the pool's",
     "This member's PROXY protocol header, when it differs from the pool's `proxy_protocol`.",
     [](YamlReader& r, const Field& f, Member& m) {
       if (auto v = read_proxy_protocol(r, f)) m.proxy_protocol = *v;
     }},
};

}  // namespace

const Section<ConfigDraft>& top_section() {
  static constexpr Section<ConfigDraft> kSection{"", "top level", kTopKeys};
  return kSection;
}

const Section<Admin>& admin_section() {
  static constexpr Section<Admin> kSection{"admin", "admin", kAdminKeys};
  return kSection;
}

const Section<model::AdminMetrics>& admin_metrics_section() {
  static constexpr Section<model::AdminMetrics> kSection{"admin.metrics", "admin.metrics",
                                                         kAdminMetricsKeys};
  return kSection;
}

const Section<model::Peer>& peer_section() {
  static constexpr Section<model::Peer> kSection{"peer", "peers[]", kPeerKeys};
  return kSection;
}

const Section<model::PeersAuth>& peers_auth_section() {
  static constexpr Section<model::PeersAuth> kSection{"peers_auth", "peers_auth", kPeersAuthKeys};
  return kSection;
}

const Section<model::PeerTls>& peer_tls_section() {
  static constexpr Section<model::PeerTls> kSection{"peers_auth.tls", "peers_auth.tls",
                                                    kPeerTlsKeys};
  return kSection;
}

const Section<model::Log>& log_section() {
  static constexpr Section<model::Log> kSection{"log", "log", kLogKeys};
  return kSection;
}

const Section<Listener>& listener_section() {
  static constexpr Section<Listener> kSection{"listener", "listeners[]", kListenerKeys};
  return kSection;
}

const Section<PoolDraft>& pool_section() {
  static constexpr Section<PoolDraft> kSection{"pool", "pools[]", kPoolKeys};
  return kSection;
}

const Section<Member>& member_section() {
  static constexpr Section<Member> kSection{"member", "pools[].members[]", kMemberKeys};
  return kSection;
}

}  // namespace vigil::config
