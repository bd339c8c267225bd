// Accepting on a worker's listening sockets: the batch per wake-up, the pause when descriptors
// run out, and closing them for a graceful stop. The worker's thread only.
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "base/log.h"
#include "net/socket.h"
#include "proxy/worker_loop.h"

namespace vigil::proxy {
namespace {

bool trusted(const ListenerRuntime& runtime, const net::SocketAddress& peer) {
  for (const net::Cidr& cidr : runtime.trusted_sources) {
    if (cidr.contains(peer)) return true;
  }
  return false;
}

}  // namespace

size_t Worker::Loop::stop_accepting() {
  accepting_ = false;
  for (auto& [id, l] : listeners_) retire(std::move(l));
  listeners_.clear();
  paused_.clear();
  full_.clear();
  return sessions_.size();
}

// Out of epoll explicitly: after an upgrade's fork another process holds the same socket, and
// closing our descriptor alone would leave it registered, its events naming a freed handler.
void Worker::Loop::retire(std::unique_ptr<Listening> l) {
  if (l->fd.valid()) {
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, l->fd.get(), nullptr);
    l->fd.reset();
  }
  retired_.push_back(std::move(l));
}

void Worker::Loop::accept_from(Listening& l) {
  if (!l.fd.valid()) return;  // retired earlier in this batch
  const ListenerRuntime& runtime = *l.runtime;
  for (int i = 0; i < 64; ++i) {
    if (runtime.queue_at_limit && runtime.stats->active.load(std::memory_order_relaxed) >=
                                      static_cast<uint64_t>(runtime.max_connections)) {
      hold_at_limit(l);
      return;  // the next clients wait in the backlog, as behind HAProxy's maxconn
    }
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    const int fd =
        ::accept4(l.fd.get(), reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE) {
        out_of_descriptors(runtime.name, "accept: " + net::errno_string(errno));
      }
      return;  // EAGAIN, or an error the next round may not have
    }
    net::Fd client(fd);
    // A queueing listener let this one in above: the limit is shared with the other workers,
    // which may have filled it meanwhile, and an accepted client is served rather than closed.
    if (!runtime.queue_at_limit && runtime.stats->active.load(std::memory_order_relaxed) >=
                                       static_cast<uint64_t>(runtime.max_connections)) {
      runtime.stats->rejected.fetch_add(1, std::memory_order_relaxed);
      continue;  // closing at once tells the client; holding it would look like a hang
    }
    if (runtime.pool_index >= pools_.size() || !pools_[runtime.pool_index]) {
      runtime.stats->no_backend.fetch_add(1, std::memory_order_relaxed);
      continue;  // cannot happen by contract (a listener names a live pool); never crash on it
    }
    const net::SocketAddress peer =
        net::SocketAddress::from_sockaddr(reinterpret_cast<sockaddr*>(&ss), len);
    if (runtime.allowed_sources && !runtime.allowed_sources->contains(peer)) {
      // As Octavia's security group drops it; a close tells the client rather than a hang.
      runtime.stats->refused_cidr.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    if (runtime.accept_proxy && !trusted(runtime, peer)) {
      runtime.stats->proxy_untrusted.fetch_add(1, std::memory_order_relaxed);
      proxy_header_refused(runtime.name, peer, "not in trusted_sources");
      continue;  // its header, whatever it says, is not to be believed
    }
    hedge_tokens_ = std::min(kHedgeBurst, hedge_tokens_ + 0.1);
    const uint64_t id = next_session_id_++;
    auto session = std::make_unique<Session>(*this, id, std::move(client), peer, l.runtime);
    Session& s = *session;
    sessions_.emplace(id, std::move(session));
    if (tracking_sessions_) {
      if (opened_since_sync_.empty()) new_sessions_.store(true, std::memory_order_relaxed);
      opened_since_sync_.push_back(id);
    }
    s.start();
  }
}

// Says so at most every 10 s, and stops accepting on every listener of this worker for a while:
// each new connection would meet the same shortage. Connections wait in the backlog meanwhile.
void Worker::Loop::out_of_descriptors(const std::string& listener, const std::string& reason) {
  constexpr auto kFdLogEvery = std::chrono::seconds(10);
  ++fd_failures_;
  if (fd_warned_at_ == TimePoint{} || now_ - fd_warned_at_ >= kFdLogEvery) {
    log::warn(
        "worker {}: listener {}: {} ({} connections not served); new connections wait in "
        "the backlog; raise the open-file limit (LimitNOFILE) or lower max_connections",
        index_, listener, reason, fd_failures_);
    fd_warned_at_ = now_;
    fd_failures_ = 0;
  }
  pause_accepting();
}

void Worker::Loop::proxy_header_refused(const std::string& listener, const net::SocketAddress& peer,
                                        std::string_view reason) {
  constexpr auto kRefusalLogEvery = std::chrono::seconds(10);
  ++proxy_refusals_;
  if (proxy_warned_at_ != TimePoint{} && now_ - proxy_warned_at_ < kRefusalLogEvery) return;
  log::warn(
      "worker {}: listener {}: closed a connection from {}: {} (accept_proxy; {} closed "
      "for their PROXY header since the last such line, this one included)",
      index_, listener, peer.to_string(), reason, proxy_refusals_);
  proxy_warned_at_ = now_;
  proxy_refusals_ = 0;
}

void Worker::Loop::pause_accepting() {
  constexpr auto kPause = std::chrono::milliseconds(100);
  if (!paused_.empty()) return;
  for (auto& [id, listening] : listeners_) {
    if (!listening->fd.valid()) continue;
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, listening->fd.get(), nullptr);
    paused_.push_back(id);
  }
  resume_at_ = now_ + kPause;
}

void Worker::Loop::hold_at_limit(Listening& l) {
  ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, l.fd.get(), nullptr);
  if (std::find(full_.begin(), full_.end(), l.id) == full_.end()) full_.push_back(l.id);
  full_check_at_ = now_ + kFullRecheck;
}

void Worker::Loop::resume_below_limit() {
  std::erase_if(full_, [&](const std::string& id) {
    auto it = listeners_.find(id);
    if (it == listeners_.end() || !it->second->fd.valid()) return true;  // removed meanwhile
    Listening& l = *it->second;
    const ListenerRuntime& rt = *l.runtime;
    if (rt.queue_at_limit && rt.stats->active.load(std::memory_order_relaxed) >=
                                 static_cast<uint64_t>(rt.max_connections)) {
      return false;
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = static_cast<Handler*>(&l);
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, l.fd.get(), &ev);
    return true;
  });
  if (!full_.empty()) full_check_at_ = now_ + kFullRecheck;
}

void Worker::Loop::resume_accepting() {
  for (const std::string& id : paused_) {
    auto it = listeners_.find(id);
    if (it == listeners_.end() || !it->second->fd.valid()) continue;  // removed meanwhile
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = static_cast<Handler*>(it->second.get());
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, it->second->fd.get(), &ev);
  }
  paused_.clear();
  resume_at_ = {};
}

}  // namespace vigil::proxy
