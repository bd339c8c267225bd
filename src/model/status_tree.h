// A read-only picture of one load balancer at one moment: configuration, Octavia statuses and the
// last health check of every member. Built by the control thread (daemon/), rendered by admin/ as
// Octavia JSON and by the CLI as tables. Plain values; safe to copy to any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/admin_override.h"
#include "model/check_result.h"
#include "model/check_stats.h"
#include "model/config.h"
#include "model/disruption.h"
#include "model/member_history.h"
#include "model/status.h"

namespace vigil::model {

struct MemberView {
  std::string id;
  std::string pool_id;
  Member config;
  std::optional<AdminOverride> admin_override;  // an operator's drain, maint or weight
  OperatingStatus operating_status = OperatingStatus::kOffline;
  Health health = Health::kUnchecked;
  bool in_rotation = false;  // receives new connections now
  std::optional<CheckResult> last_check;
  WallTime last_check_at{};
  WallTime state_since{};  // when operating_status last changed
  // The status its health alone gives it (an operator's drain or maintenance aside) and since
  // when: the status page's "since" and downtime.
  OperatingStatus health_status = OperatingStatus::kOffline;
  WallTime health_since{};
  int consecutive_successes = 0;
  int consecutive_failures = 0;
  uint64_t active_connections = 0;
  uint64_t total_connections = 0;
  uint64_t connect_failures = 0;  // passive: connects from the data plane that failed
  uint64_t bytes_in = 0;          // member -> client
  uint64_t bytes_out = 0;         // client -> member
  CheckStats checks;              // durations, failures, transitions, local failures
  // The last hour by the minute, for the status page; null in views built without it (a
  // /v1/status or /metrics answer: 1 KB a member they would copy for nothing).
  std::shared_ptr<const MemberHistory> history;
  DisruptionCounts disruption;  // what its faults cost clients, since the process started
  std::optional<Disruption> last_disruption;  // its last time out of service; none yet
};

// A pool's members_from source (kube/members_source.h), as status and metrics show it.
struct MembersSourceView {
  std::string state;   // bootstrap | following | stale
  std::string server;  // "https://10.0.0.11:6443 (kubeconfig /etc/vigil/kubeconfig)"
  std::string resource_version;
  std::string last_error;          // empty when all is well
  double unconfirmed_seconds = 0;  // since the API was last read, while it cannot be
  uint64_t members = 0;            // the API's ready endpoints last known
  uint64_t lists = 0, expiries = 0, failures = 0, changes = 0;
};

struct PoolView {
  std::string id;
  std::string load_balancer_id;
  std::vector<std::string> listener_ids;
  std::string health_monitor_id;  // empty: no monitor
  Pool config;                    // members are in `members`, not config.members
  OperatingStatus operating_status = OperatingStatus::kOnline;
  bool fail_open_active = false;  // no member usable: routing to those that connect
  // With session_persistence: the slots of its stick table that hold a client.
  uint64_t persistence_entries = 0;
  std::optional<MembersSourceView> members_source;  // with members_from
  std::vector<MemberView> members;
};

// Copies of the data plane's per-listener counters (proxy::ListenerStats) besides the connections.
struct ListenerCounters {
  uint64_t bytes_in = 0;          // client -> vigil
  uint64_t bytes_out = 0;         // vigil -> client
  uint64_t rejected = 0;          // refused at max_connections
  uint64_t no_backend = 0;        // closed because no member could be reached
  uint64_t retried = 0;           // connects to another member after one failed
  uint64_t hedged = 0;            // second connects because the first was slow
  uint64_t replayed = 0;          // first flights sent again to another member
  uint64_t connect_failures = 0;  // connects to members that failed, from this listener
  // Closed by accept_proxy: untrusted source, malformed header, no header in time.
  uint64_t proxy_untrusted = 0;
  uint64_t proxy_invalid = 0;
  uint64_t proxy_timeout = 0;
  uint64_t refused_cidr = 0;  // closed at accept: from outside allowed_cidrs
};

// A co-located listener's nftables redirect (redirect_from) as the control thread last made it.
struct RedirectView {
  std::string from;     // "192.0.2.10:6443"
  bool active = false;  // the rule is in the kernel now
  // Why it is present or absent: "3 usable members in pool api", "no usable member in pool
  // api", "listener not serving: ...", or nftables' error when carrying out the decision failed.
  std::string reason;
  bool operator==(const RedirectView&) const = default;
};

struct ListenerView {
  std::string id;
  std::string load_balancer_id;
  std::string default_pool_id;
  Listener config;
  std::string bound;         // "address:port" actually bound, e.g. with port 0 in tests
  std::string bind_error;    // not bound (operating_status ERROR): why; retried
  uint64_t bind_errors = 0;  // failed attempts to bind
  OperatingStatus operating_status = OperatingStatus::kOnline;
  uint64_t active_connections = 0;
  uint64_t total_connections = 0;
  ListenerCounters counters;
  std::optional<RedirectView> redirect;  // with redirect_from only
};

struct Transition {
  WallTime at{};
  std::string pool_id;
  std::string pool;
  std::string member;
  std::string message;  // the log line
};

// Another node of `peers` as this one sees it (daemon/peer_sync.h).
struct PeerStatus {
  std::string name;
  std::string address;          // address:port
  bool sending = false;         // this node's sessions stream to it
  bool receiving = false;       // its sessions stream to this node
  uint64_t sessions_known = 0;  // its sessions, as it last said
  bool synced = false;          // its whole list arrived since it last connected
  Duration since_heard{};       // since its last frame; zero while not receiving
  uint64_t lost = 0;            // times its stream went silent or closed
  uint64_t refused = 0;         // its connections refused: a bad proof, garbage, too many sessions
  uint64_t sessions_tickled = 0;  // of its sessions, tickled here after it was lost
  bool operator==(const PeerStatus&) const = default;
};

struct LoadBalancerView {
  std::string id;
  std::string name;
  std::string source_file;
  // The API's vip_address; the file's: its first listener's address, "0.0.0.0" for every one.
  std::string vip_address;
  OperatingStatus operating_status = OperatingStatus::kOnline;
  WallTime started_at{};
  // The last reload of the config file (SIGHUP or POST /v1/reload); none yet: unset and true.
  bool last_reload_ok = true;
  WallTime last_reload_at{};
  // Connection-log records the workers' full rings dropped (proxy/connection_log.h), all
  // listeners; process-wide, so the file's load balancer carries it.
  uint64_t connection_log_dropped = 0;
  // Addresses this host lost while serving, the client sessions on them that it reset, and the
  // tickle ACKs it sent their clients or could not (daemon/tickler.h); process-wide too.
  struct Takeover {
    uint64_t addresses_lost = 0;
    uint64_t sessions = 0;
    uint64_t tickles_sent = 0;
    uint64_t tickles_failed = 0;
  };
  Takeover takeover;
  // The other nodes of `peers` and this node's sessions as they know them (the file's load
  // balancer only, as the counters above).
  std::vector<PeerStatus> peers;
  uint64_t peer_sessions_sent = 0;
  std::vector<ListenerView> listeners;
  std::vector<PoolView> pools;
  std::vector<Transition> recent_transitions;  // newest last, bounded
};

}  // namespace vigil::model
