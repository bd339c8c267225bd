// Listing a worker's sessions for the admin API: on the worker's thread, between event batches,
// so that the sessions it reads cannot change under it. Costs nothing until someone asks.
#include <linux/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <utility>

#include "net/socket.h"
#include "proxy/worker_loop.h"

namespace vigil::proxy {
namespace {

// Asked of the kernel at listing time rather than kept: a whole address per session would cost
// every idle session its bytes, and listings are rare.
std::string peer_of(int fd) {
  auto a = net::peer_address(fd);
  return a ? a->to_string() : "";
}

// The client leg's bytes each way as its kernel counted them: received from the client (what
// went on to the member) and acknowledged by it (what came back). Counting them in the session
// instead would add 16 bytes to every session and two adds to every pump pass.
std::pair<uint64_t, uint64_t> client_bytes(int fd) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return {0, 0};
  return {info.tcpi_bytes_received, info.tcpi_bytes_acked};
}

}  // namespace

SessionListing Worker::Loop::list_sessions(const std::vector<const BackendStats*>* members,
                                           size_t limit) const {
  SessionListing out{.worker = index_};
  for (const auto& [id, s] : sessions_) {
    if (!s->established() || s->closed()) continue;
    if (members != nullptr && std::ranges::find(*members, s->member()) == members->end()) {
      continue;
    }
    ++out.total;
    if (out.sessions.size() >= limit) continue;
    const auto [in, back] = client_bytes(s->client_fd());
    out.sessions.push_back({.id = id,
                            .listener = s->listener_name(),
                            .member = s->member_stats(),
                            // With accept_proxy, the address its header carried.
                            .client = s->client_address().to_string(),
                            .member_address = peer_of(s->backend_fd()),
                            .age = s->age(now_),
                            .bytes_in = in,
                            .bytes_out = back});
  }
  return out;
}

// Asked of the kernel per session, once, when an address goes: nothing is kept for it meanwhile.
std::vector<LostSession> Worker::Loop::reset_sessions_on(const std::string& local_ip) {
  std::vector<LostSession> lost;
  for (auto& [id, s] : sessions_) {
    if (s->closed()) continue;
    auto local = net::local_address(s->client_fd());
    if (!local || net::unmapped(local->ip_bytes()) != net::unmapped(local_ip)) continue;
    auto client = net::peer_address(s->client_fd());
    if (client) lost.push_back({.local = *local, .client = *client});
    s->reset_client_for(SessionEnd::kAddressLost);
  }
  return lost;  // the sessions are deleted after this event batch, like every closed session
}

SessionChanges Worker::Loop::session_changes() {
  new_sessions_.store(false, std::memory_order_relaxed);
  SessionChanges out{.worker = index_};
  auto list = [&](uint64_t id, const Session& s) {
    if (s.closed()) return;
    auto local = net::local_address(s.client_fd());
    auto client = net::peer_address(s.client_fd());
    if (local && client) out.opened.push_back({.id = id, .local = *local, .client = *client});
  };
  if (!tracking_sessions_) {  // the first answer: every session there is
    tracking_sessions_ = true;
    for (const auto& [id, s] : sessions_) list(id, *s);
  } else {
    for (uint64_t id : opened_since_sync_) {
      if (auto it = sessions_.find(id); it != sessions_.end()) list(id, *it->second);
    }
    out.closed = std::move(closed_since_sync_);
  }
  opened_since_sync_.clear();
  closed_since_sync_.clear();
  synced_below_ = next_session_id_;
  return out;
}

bool Worker::has_new_sessions() const { return loop_->has_new_sessions(); }

void Worker::session_changes(std::function<void(SessionChanges)> done) {
  post([done = std::move(done)](Loop& loop) { done(loop.session_changes()); });
}

void Worker::list_sessions(std::shared_ptr<const std::vector<const BackendStats*>> members,
                           size_t limit, std::function<void(SessionListing)> done) {
  post([members = std::move(members), limit, done = std::move(done)](Loop& loop) {
    done(loop.list_sessions(members.get(), limit));
  });
}

}  // namespace vigil::proxy
