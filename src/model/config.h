// The configuration model: plain structs produced by config/ (from YAML or haproxy.cfg) and read
// by everything else. Values, no behaviour but the names of its enums and what a monitor type
// implies; defaults here are the product's defaults (docs/configuration.md). Owned by the control
// thread; workers see only proxy snapshots. The names and predicates are constants: any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "model/expected_codes.h"
#include "model/source_location.h"
#include "model/spelling.h"

namespace vigil::model {

using namespace std::chrono_literals;

enum class Algorithm { kRoundRobin, kLeastConnections, kSourceIp };
enum class MonitorType { kTcp, kTlsHello, kHttp, kHttps };
// Whether a session may send the client's first flight again to another member when the first
// one failed before answering (proxy/session_replay.cc). Replaying is safe only when the member
// cannot have acted on the bytes.
enum class Replay : uint8_t {
  kTls,     // only a TLS handshake record: no request runs before the handshake completes
  kAlways,  // whatever was kept: the operator knows a repeat is harmless
  kNever,   // never; a member silent past first_byte_timeout is still reported
};
// Whether vigil writes a PROXY protocol header (HAProxy's send-proxy, send-proxy-v2) to a member
// before the client's first byte, and which version.
enum class ProxyProtocol : uint8_t { kOff, kV1, kV2 };
// What a listener does with a new connection while it holds max_connections: close it at once
// (a quick retry beats a hang), or leave it in the kernel's backlog until a session ends, as
// HAProxy's maxconn (and so Octavia's connection_limit) does.
enum class AtLimit : uint8_t { kClose, kQueue };
// Octavia's session_persistence types vigil carries out: none, or a stick table on the client's
// address (HAProxy's `stick on src`) that keeps a client on its member while others come and go.
enum class Persistence : uint8_t { kNone, kSourceIp };

// vigil's names (YAML, `vigil check`, the status page, logs), in the order messages list them.
inline constexpr Spelling<Algorithm> kAlgorithmNames[] = {
    {Algorithm::kRoundRobin, "round_robin"},
    {Algorithm::kLeastConnections, "least_connections"},
    {Algorithm::kSourceIp, "source_ip"},
};
// The same names as Octavia's, which vigil's API speaks.
inline constexpr Spelling<MonitorType> kMonitorTypeNames[] = {
    {MonitorType::kTcp, "TCP"},
    {MonitorType::kTlsHello, "TLS-HELLO"},
    {MonitorType::kHttp, "HTTP"},
    {MonitorType::kHttps, "HTTPS"},
};
inline constexpr Spelling<Replay> kReplayNames[] = {
    {Replay::kTls, "tls"},
    {Replay::kAlways, "always"},
    {Replay::kNever, "never"},
};
inline constexpr Spelling<ProxyProtocol> kProxyProtocolNames[] = {
    {ProxyProtocol::kOff, "off"},
    {ProxyProtocol::kV1, "v1"},
    {ProxyProtocol::kV2, "v2"},
};

inline constexpr Spelling<AtLimit> kAtLimitNames[] = {
    {AtLimit::kClose, "close"},
    {AtLimit::kQueue, "queue"},
};

inline constexpr Spelling<Persistence> kPersistenceNames[] = {
    {Persistence::kNone, "none"},
    {Persistence::kSourceIp, "SOURCE_IP"},
};

template <>
constexpr std::span<const Spelling<Persistence>> spellings<Persistence>() {
  return kPersistenceNames;
}
template <>
constexpr std::span<const Spelling<AtLimit>> spellings<AtLimit>() {
  return kAtLimitNames;
}
template <>
constexpr std::span<const Spelling<Algorithm>> spellings<Algorithm>() {
  return kAlgorithmNames;
}
template <>
constexpr std::span<const Spelling<MonitorType>> spellings<MonitorType>() {
  return kMonitorTypeNames;
}
template <>
constexpr std::span<const Spelling<Replay>> spellings<Replay>() {
  return kReplayNames;
}
template <>
constexpr std::span<const Spelling<ProxyProtocol>> spellings<ProxyProtocol>() {
  return kProxyProtocolNames;
}
constexpr std::string_view to_string(Algorithm a) { return name_in(spellings<Algorithm>(), a); }
constexpr std::string_view to_string(MonitorType t) { return name_in(spellings<MonitorType>(), t); }
constexpr std::string_view to_string(Replay r) { return name_in(spellings<Replay>(), r); }
constexpr std::string_view to_string(AtLimit a) { return name_in(spellings<AtLimit>(), a); }
constexpr std::string_view to_string(Persistence p) { return name_in(spellings<Persistence>(), p); }
constexpr std::string_view to_string(ProxyProtocol p) {
  return name_in(spellings<ProxyProtocol>(), p);
}

// The check sends an HTTP request (and reads its answer).
constexpr bool uses_http(MonitorType t) {
  return t == MonitorType::kHttp || t == MonitorType::kHttps;
}
// The check makes a TLS handshake.
constexpr bool uses_tls(MonitorType t) {
  return t == MonitorType::kTlsHello || t == MonitorType::kHttps;
}

// A check starts up to this many percent of its interval early or late, so that checks of many
// members spread out. The scheduler draws within it; config/timing.cc's worst cases stretch by
// it, in integer arithmetic to stay exact.
inline constexpr int kCheckJitterPercent = 10;

struct TlsCheck {
  bool verify = false;
  std::string ca_file;
  std::string server_name;  // SNI and the name verified; defaults to the member's address
  std::string client_cert;
  std::string client_key;
  bool operator==(const TlsCheck&) const = default;
};

// How a monitor checks: what its results depend on. Members checked the same way before and after
// a reload or an API write keep their health (model::same_checks).
struct MonitorSettings {
  MonitorType type = MonitorType::kTcp;
  std::string path = "/readyz";
  std::string http_method = "GET";
  std::string host;              // Host header; defaults to the member's address
  ExpectedCodes expected_codes;  // defaults to 200
  Duration interval = 5s;
  Duration fast_interval = 1s;  // while a member is between states (HAProxy's fastinter)
  Duration timeout = 2s;
  int healthy_threshold = 2;
  int unhealthy_threshold = 3;
  TlsCheck tls;
  std::string bearer_token_file;
  // HTTP and HTTPS: a passing check leaves its connection open for the next one (as Envoy's
  // reuse_connection); a fresh connection is still made at least every fresh_connection_every
  // and after any failure (health/kept_connection.h).
  bool reuse_connection = true;
  // How long a kept connection (and, for HTTPS, the TLS session its handshakes resume) serves
  // before a check connects afresh with a full handshake: this less up to a fifth, drawn per
  // member. Longer means fewer full handshakes at the members (many node-local vigils).
  Duration fresh_connection_every = std::chrono::seconds(60);
  // Checks start with a PROXY header, as HAProxy's check-send-proxy: v2 LOCAL, or v1 UNKNOWN
  // (the member's own proxy_protocol version; v1 when it has none).
  bool send_proxy = false;
  // Every field, so that a setting added later changes same_checks without anyone remembering to
  // list it (a hand-written comparison forgets the field added last).
  bool operator==(const MonitorSettings&) const = default;
};

// A base class rather than a member, so that code reads monitor.type; designated initializers
// then need the settings in their own braces: HealthMonitor{{.type = MonitorType::kHttps}}.
struct HealthMonitor : MonitorSettings {
  std::string id;  // empty: derived from the pool's name (objects from a config file)
  SourceLocation where;
  bool operator==(const HealthMonitor&) const = default;
};

struct Member {
  std::string id;  // empty: derived from the names (objects from a config file)
  std::string name;
  std::string address;  // an IP literal or a host name resolved at load time
  uint16_t port = 0;
  int weight = 1;  // 0..256; 0 drains
  bool backup = false;
  bool enabled = true;
  std::string monitor_address;                  // empty: address
  uint16_t monitor_port = 0;                    // 0: port
  std::optional<ProxyProtocol> proxy_protocol;  // none: the pool's
  SourceLocation where;
  bool operator==(const Member&) const = default;
};

// The clients a pool's session persistence remembers, as Octavia's amphora's table
// (`stick-table type ip size 10k`); past that, a new client takes an old one's place.
inline constexpr size_t kPersistenceEntries = 10000;

// A pool's session persistence (Octavia's session_persistence): which client goes back to which
// member, for how long after its last connection, and how much of its address counts.
struct SessionPersistence {
  Persistence type = Persistence::kNone;
  Duration timeout = 360s;  // Octavia's persistence_timeout default
  // Octavia's persistence_granularity: a netmask (255.255.255.0, ffff:ffff:ffff:ffff::) that
  // applies to clients of its family; clients in one masked network share an entry. Empty: the
  // whole address (Octavia's 255.255.255.255).
  std::string granularity;
  bool operator==(const SessionPersistence&) const = default;
};

// Where a pool's members come from besides its `members:` (members_from): a Kubernetes
// Service's EndpointSlices, listed then watched (kube/members_source.h). The file's members are
// the bootstrap set until the API answers; its `backup` members stay whatever it answers.
struct KubernetesMembers {
  std::string service_namespace = "default";
  std::string service = "kubernetes";
  std::string port = "https";  // the EndpointSlice port's name; digits: its number
  std::string kubeconfig;      // empty: in-cluster (the pod's service account)
  SourceLocation where;
  bool operator==(const KubernetesMembers&) const = default;
};

struct Pool {
  std::string id;  // empty: derived from the names (objects from a config file)
  std::string name;
  Algorithm algorithm = Algorithm::kRoundRobin;
  Duration connect_timeout = 1s;
  int retries = 3;
  bool fail_open = true;  // route to every member when none is usable
  // false: the pool is OFFLINE (Octavia's admin_state_up), its members disabled with it; an
  // OFFLINE pool does not make its load balancer DEGRADED or ERROR, as in Octavia.
  bool enabled = true;
  Duration hedge_after = 200ms;  // a second connect to another member after this; 0 disables
  bool shutdown_sessions_on_down = true;  // close a dead member's sessions when it goes ERROR
  Duration dead_peer_timeout = 10s;       // backend legs: keepalive + TCP_USER_TIMEOUT
  Duration slow_start = 0s;  // a recovered member's share ramps up over this long; 0: at once
  // A member silent this long after the client's first bytes (or closing before its first byte)
  // is reported like a failed connect and the session moves on as `replay` allows; 0 disables.
  Duration first_byte_timeout = 1s;
  Replay replay = Replay::kTls;
  ProxyProtocol proxy_protocol = ProxyProtocol::kOff;  // members may say otherwise
  std::optional<HealthMonitor> health_monitor;         // none: members are NO_MONITOR
  SessionPersistence session_persistence;
  std::vector<Member> members;
  std::optional<KubernetesMembers> members_from;
  SourceLocation where;
  bool operator==(const Pool&) const = default;
};

// The most networks a listener's allowed_cidrs (and trusted_sources) may list. Octavia sets no
// number; a thousand keeps a request and the state file small, and each accept looks at one
// sorted table per prefix length, not at each network.
inline constexpr size_t kMaxAllowedCidrs = 1000;

// Where a co-located listener takes its clients from (the listener key redirect_from): tcp to this
// address and port is redirected to the listener's port while it can serve them.
struct RedirectFrom {
  std::string address;  // an IP literal without brackets, never the unspecified address
  uint16_t port = 0;    // never 0
  bool operator==(const RedirectFrom&) const = default;
};

struct Listener {
  std::string id;  // empty: derived from the names (objects from a config file)
  std::string name;
  std::string bind_address;  // empty: every address ("::" dual-stack)
  uint16_t port = 0;         // 0: the kernel picks (tests)
  std::string pool;
  int max_connections = 50000;
  AtLimit at_limit = AtLimit::kClose;  // the file's default; the Octavia API's is kQueue
  Duration idle_timeout = 1h;          // watches are long-lived
  // Octavia's timeout_member_data (HAProxy's `timeout server`): a session whose member side has
  // moved no byte for this long is closed. Every byte a session moves crosses the member side,
  // so it ends the session at the shorter of the two timeouts. 0: idle_timeout alone.
  Duration member_idle_timeout = 0s;
  Duration dead_peer_timeout = 60s;  // client legs: keepalive + TCP_USER_TIMEOUT
  // Bind even when this host does not hold bind_address (yet): the standby of a keepalived pair
  // listens on the virtual address before VRRP moves it here (IP_FREEBIND).
  bool freebind = false;
  // Connections start with a PROXY header (v1 or v2) from an upstream load balancer, whose
  // client address vigil then uses as the client's. Only from trusted_sources (CIDRs; required
  // with accept_proxy), and complete within proxy_header_timeout; otherwise closed.
  bool accept_proxy = false;
  std::vector<std::string> trusted_sources;
  Duration proxy_header_timeout = 3s;
  // Only clients from these networks (CIDRs, IPv4 or IPv6) reach a member: Octavia's
  // allowed_cidrs. Checked on the connection's own address, before any PROXY header. Empty:
  // every client.
  std::vector<std::string> allowed_cidrs;
  // One line per session end (client, member, times, bytes, how it ended): proxy/connection_log.h.
  bool log_connections = false;
  // Co-location with a process that holds this address's port (kube-apiserver's *:6443): an
  // nftables redirect to this listener while it serves and its pool has a usable member
  // (daemon/redirects.h). None: no redirect.
  std::optional<RedirectFrom> redirect_from;
  SourceLocation where;

  bool operator==(const Listener&) const = default;
};

// Where a load balancer's objects come from: a config file (read-only through the API, changed
// by editing the file and reloading) or the Octavia API (persisted in admin.state_file).
enum class Origin { kFile, kApi };

// One load balancer: its listeners and pools. The process's own settings (admin API, log,
// workers) are not here but in model::Process (model/process.h), which only the config file sets.
struct Config {
  std::string id;  // the load balancer's id; empty: derived from its name
  Origin origin = Origin::kFile;
  std::string source_file;
  std::string name;  // the load balancer's name; defaults to the file's stem
  // An API load balancer's vip_address, kept when it has no listener; the file's: empty.
  std::string vip_address;
  std::vector<Listener> listeners;
  std::vector<Pool> pools;

  const Pool* find_pool(std::string_view pool_name) const {
    for (const Pool& p : pools) {
      if (p.name == pool_name) return &p;
    }
    return nullptr;
  }
};

// Whether two monitors check the same way: their settings, not `id` and `where`, which say which
// monitor it is and where it was written. A monitor that only moved in its file, or took another
// id, is the same monitor: a reload or an API write must not forget its members' health.
inline bool same_checks(const MonitorSettings& a, const MonitorSettings& b) { return a == b; }

}  // namespace vigil::model
