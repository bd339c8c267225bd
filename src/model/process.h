// The process settings: what one vigil process has once, whatever load balancers it runs (the
// admin API, the log, the worker threads, the graceful stop), apart from them as HAProxy keeps
// `global` apart from its proxies and Envoy its Bootstrap apart from its resources. Only the
// config file's top level sets them; a load balancer made through the Octavia API has none.
// Plain values produced by config/ and held by the daemon's control thread; any thread may read
// the names.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "model/source_location.h"
#include "model/spelling.h"

namespace vigil::model {

// How log lines are written (`log.format`): a line of text, or one JSON object a line.
enum class LogFormat : uint8_t { kText, kJson };

inline constexpr Spelling<LogFormat> kLogFormatNames[] = {
    {LogFormat::kText, "text"},
    {LogFormat::kJson, "json"},
};
template <>
constexpr std::span<const Spelling<LogFormat>> spellings<LogFormat>() {
  return kLogFormatNames;
}
constexpr std::string_view to_string(LogFormat f) { return name_in(spellings<LogFormat>(), f); }

struct Log {
  LogFormat format = LogFormat::kText;
  bool operator==(const Log&) const = default;
};

// Where the objects made through the Octavia API live (`admin.store`): this node's state file,
// or etcd, which every node of a pair or fleet shares (admin/octavia/shared_store.h).
enum class StoreType : uint8_t { kFile, kEtcd };

inline constexpr Spelling<StoreType> kStoreTypeNames[] = {
    {StoreType::kFile, "file"},
    {StoreType::kEtcd, "etcd"},
};
template <>
constexpr std::span<const Spelling<StoreType>> spellings<StoreType>() {
  return kStoreTypeNames;
}
constexpr std::string_view to_string(StoreType t) { return name_in(spellings<StoreType>(), t); }

// The client's TLS towards etcd (`admin.store.tls`): the CA that signed etcd's certificates, and
// this node's certificate and key when etcd asks for one (--client-cert-auth). Empty: none.
struct StoreTls {
  std::string ca;
  std::string cert;
  std::string key;
  bool operator==(const StoreTls&) const = default;
};

struct Store {
  StoreType type = StoreType::kFile;
  std::vector<std::string> endpoints;  // etcd: "https://10.0.0.5:2379", ...
  std::string prefix = "/vigil/";      // etcd: every key vigil writes starts with it
  StoreTls tls;
  Duration timeout = std::chrono::seconds(2);  // etcd: one request, connect included
  bool readyz = false;                         // /readyz also requires this node to follow etcd
  SourceLocation where;                        // the `store` key
  bool operator==(const Store&) const = default;
};

// The objects a /metrics family describes, as HAProxy's exporter groups its own (global,
// frontend, backend, server): the process, the listeners, the pools (and their load balancers'
// status), the members.
enum class MetricsScope : uint8_t { kProcess, kListener, kPool, kMember };

inline constexpr Spelling<MetricsScope> kMetricsScopeNames[] = {
    {MetricsScope::kProcess, "process"},
    {MetricsScope::kListener, "listener"},
    {MetricsScope::kPool, "pool"},
    {MetricsScope::kMember, "member"},
};
template <>
constexpr std::span<const Spelling<MetricsScope>> spellings<MetricsScope>() {
  return kMetricsScopeNames;
}
constexpr std::string_view to_string(MetricsScope s) {
  return name_in(spellings<MetricsScope>(), s);
}

// What GET /metrics serves when a scrape does not say (`admin.metrics`).
struct AdminMetrics {
  std::vector<MetricsScope> scopes{MetricsScope::kProcess, MetricsScope::kListener,
                                   MetricsScope::kPool, MetricsScope::kMember};
  // `scopes: auto` (the default): `scopes` (all four) while the vigil runs few members, process
  // and pool only above that (admin/metrics_query.h); false when the config names a list.
  bool auto_scopes = true;
  bool member_histograms = false;  // the members' check-duration histograms
  bool operator==(const AdminMetrics&) const = default;
};

struct Admin {
  std::string listen = "127.0.0.1:8404";
  std::string socket;  // a Unix socket to serve the API on too; empty: none
  std::string token_file;
  std::string read_token_file;  // a token for GETs only (metrics, status, the page)
  std::string state_file;
  std::string octavia_project;   // the Octavia API's project_id when a request names none
  std::string octavia_endpoint;  // the Octavia API's public URL (links); empty: the request's
  bool trust_forwarded_headers = false;  // links follow a proxy's Forwarded / X-Forwarded-*
  // The Octavia API's longest page, as Octavia's [api_settings] pagination_max_limit.
  size_t octavia_pagination_max_limit = 1000;
  Store store;
  AdminMetrics metrics;
  bool operator==(const Admin&) const = default;
};

// Another vigil node of a pair or fleet (`peers[]`): each node streams its client sessions to the
// others, so that the node that takes an address over, or outlives a node, can tickle the
// sessions the lost node held (daemon/peer_sync.h). The list names every node, this one too.
struct Peer {
  std::string name;
  std::string address;  // an IP literal, without brackets
  uint16_t port = 0;
  SourceLocation where;
  bool operator==(const Peer&) const = default;
};

// Mutual TLS between peers (`peers_auth.tls`): this node's certificate and key, and the CA that
// signed every node's certificate. A node's certificate names it (a DNS SAN, or its CN when it has
// none, equal to its `peers[]` name), so that one node's certificate cannot pose as another.
struct PeerTls {
  std::string cert;
  std::string key;
  std::string ca;
  SourceLocation where;  // the `tls` key: errors about its files name it
  bool operator==(const PeerTls&) const = default;
};

// How peers prove who they are to each other (`peers_auth`): a token both hold, or mutual TLS.
struct PeersAuth {
  std::string token_file;
  std::optional<PeerTls> tls;
  bool operator==(const PeersAuth&) const = default;
};

struct Process {
  Admin admin;
  Log log;
  int workers = 0;  // 0: one per core
  // SIGTERM: how long established sessions may go on after the listeners close; 0: cut at once.
  Duration shutdown_grace = std::chrono::seconds(30);
  std::vector<Peer> peers;  // empty: no session sync
  PeersAuth peers_auth;
  std::string peer_name;  // which of `peers` this node is; empty: the host's name
  bool operator==(const Process&) const = default;
};

}  // namespace vigil::model
