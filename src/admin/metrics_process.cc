// The unlabelled families of /metrics: the build, the process (as the Prometheus client
// libraries name them, so that stock dashboards find them) and the last reload.
#include <dirent.h>
#include <sys/resource.h>

#include <chrono>

#include "admin/metrics_writer.h"
#include "admin/text.h"

#ifndef VIGIL_VERSION
#define VIGIL_VERSION "unknown"
#endif
#ifndef VIGIL_REVISION
#define VIGIL_REVISION "unknown"
#endif

namespace vigil::admin::metrics {
namespace {

// Entries of /proc/self/fd, less the one opendir() holds while counting; -1 when unreadable.
int64_t open_fds() {
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int64_t n = 0;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  ::closedir(dir);
  return n - 1;
}

// The peer sync (daemon/peer_sync.h): each other node's streams and what this node knows of it.
void peer_metrics(Writer& w, const model::LoadBalancerView& file) {
  std::vector<std::string> labels;
  for (const model::PeerStatus& p : file.peers)
    append_label(labels.emplace_back(), "", "peer", p.name);
  // One sample per peer of what `value` reads of it.
  const auto per_peer = [&](std::string_view name, std::string_view type, std::string_view help,
                            uint64_t (*value)(const model::PeerStatus&)) {
    w.family(name, type, help);
    for (size_t i = 0; i < labels.size(); ++i) w.sample(name, labels[i], "", value(file.peers[i]));
  };
  w.family("vigil_peer_up", "gauge",
           "1 while the stream is up and authenticated: `send` carries this node's sessions to "
           "the peer, `receive` the peer's to this node.");
  for (size_t i = 0; i < labels.size(); ++i) {
    w.sample("vigil_peer_up", labels[i], ",direction=\"send\"", uint64_t{file.peers[i].sending});
    w.sample("vigil_peer_up", labels[i], ",direction=\"receive\"",
             uint64_t{file.peers[i].receiving});
  }
  per_peer("vigil_peer_sessions", "gauge", "The peer's client sessions, as it last said.",
           [](const model::PeerStatus& p) { return p.sessions_known; });
  per_peer("vigil_peer_lost_total", "counter",
           "Times the peer's stream went silent (1 s) or closed.",
           [](const model::PeerStatus& p) { return p.lost; });
  per_peer("vigil_peer_refused_total", "counter",
           "Connections as the peer (or from its address) refused: no valid proof of the peers "
           "token, a TLS certificate of another CA, none, or not naming the peer, broken frames, "
           "or more sessions than the bound.",
           [](const model::PeerStatus& p) { return p.refused; });
  per_peer("vigil_peer_sessions_tickled_total", "counter",
           "The peer's sessions this node tickled after the peer was lost.",
           [](const model::PeerStatus& p) { return p.sessions_tickled; });
  w.family("vigil_peer_sessions_sent", "gauge",
           "This node's client sessions, as its peers know them.");
  w.sample("vigil_peer_sessions_sent", file.peer_sessions_sent);
}

}  // namespace

void process_families(Writer& w, const Lbs& lbs, bool members_left_out) {
  w.family("vigil_build_info", "gauge",
           "Always 1; the version and the git commit of vigil as labels.");
  w.sample("vigil_build_info", "version=\"" VIGIL_VERSION "\",revision=\"" VIGIL_REVISION "\"", "",
           uint64_t{1});
  // The views are the only source of the start time and the reload: the file's load balancer
  // (always first) carries them.
  const model::LoadBalancerView* file = lbs.empty() ? nullptr : &lbs.front();
  if (file != nullptr && is_set(file->started_at)) {
    w.family("process_start_time_seconds", "gauge", "Start time of the process, in unix seconds.");
    w.sample("process_start_time_seconds", seconds(file->started_at));
  }
  if (const int64_t fds = open_fds(); fds >= 0) {
    w.family("process_open_fds", "gauge", "Open file descriptors.");
    w.sample("process_open_fds", static_cast<uint64_t>(fds));
  }
  if (rlimit r{}; ::getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY) {
    w.family("process_max_fds", "gauge", "The limit of open file descriptors (RLIMIT_NOFILE).");
    w.sample("process_max_fds", static_cast<uint64_t>(r.rlim_cur));
  }
  if (file != nullptr) {
    w.family("vigil_config_last_reload_successful", "gauge",
             "1 when the last reload of the config file took effect (or none was asked), 0 when "
             "it was refused and the previous configuration runs on.");
    w.sample("vigil_config_last_reload_successful", uint64_t{file->last_reload_ok});
    // Before any reload the configuration running is the one loaded at the start.
    const model::WallTime at =
        is_set(file->last_reload_at) ? file->last_reload_at : file->started_at;
    w.family("vigil_config_last_reload_timestamp_seconds", "gauge",
             "When the config file was last loaded or a reload of it was tried, in unix seconds.");
    w.sample("vigil_config_last_reload_timestamp_seconds", seconds(at));
    w.family("vigil_connection_log_dropped_total", "counter",
             "Connection-log records dropped because a worker's ring was full (the log could not "
             "keep up).");
    w.sample("vigil_connection_log_dropped_total", file->connection_log_dropped);
    const model::LoadBalancerView::Takeover& t = file->takeover;
    w.family("vigil_takeover_addresses_lost_total", "counter",
             "Addresses this host lost while vigil served (moved to another node, or removed).");
    w.sample("vigil_takeover_addresses_lost_total", t.addresses_lost);
    w.family("vigil_takeover_sessions_reset_total", "counter",
             "Client sessions whose clients vigil tickled: its own on an address this host lost "
             "(reset first), and its peers' on an address that came here or of a peer lost.");
    w.sample("vigil_takeover_sessions_reset_total", t.sessions);
    w.family("vigil_takeover_tickles_total", "counter",
             "Tickle ACKs to the clients of those sessions: sent, or refused by the kernel (no "
             "CAP_NET_RAW, no route).");
    w.sample("vigil_takeover_tickles_total", "result=\"sent\"", "", t.tickles_sent);
    w.sample("vigil_takeover_tickles_total", "result=\"failed\"", "", t.tickles_failed);
    if (!file->peers.empty()) peer_metrics(w, *file);
  }
  // So that the member alerts cannot stop silently when a vigil grows past the limit
  // (VigilMemberMetricsLeftOut): the series is there, 0 or 1, in every scrape of the process.
  static const std::string kLeftOutHelp = fmt::format(
      "1 when this scrape left the member and listener families out because admin.metrics.scopes "
      "is auto and vigil runs more than {} members; scrape them with scope=member&scope=listener.",
      kAutoScopesMemberLimit);
  w.family("vigil_metrics_members_left_out", "gauge", kLeftOutHelp);
  w.sample("vigil_metrics_members_left_out", uint64_t{members_left_out});
}

}  // namespace vigil::admin::metrics
