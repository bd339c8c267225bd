#include "proxy/worker.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <queue>
#include <unordered_map>

#include "base/log.h"
#include "net/socket.h"
#include "proxy/session.h"

namespace vigil::proxy {

class Worker::Loop final : public SessionHost {
 public:
  Loop(int index, std::vector<ListenSocket> listeners, std::vector<PoolSnapshotPtr> pools,
       WorkerCallbacks callbacks);
  ~Loop() override;

  void run();
  void post(std::function<void(Loop&)> fn);
  void set_pools(std::vector<PoolSnapshotPtr> pools);
  void set_listeners(std::vector<ListenSocket> listeners);
  void request_stop() { stopping_ = true; }

  // SessionHost
  TimePoint now() const override { return now_; }
  int epoll_fd() const override { return epoll_.get(); }
  BufferPool& buffers() override { return buffers_; }
  PipePool& pipes() override { return pipes_; }
  void schedule(uint64_t session_id, TimePoint when) override { timers_.push({when, session_id}); }
  // Null for an index a reload has retired (a session may outlive its listener's pool).
  const PoolSnapshotPtr& pool(uint32_t index) const override {
    static const PoolSnapshotPtr kNone;
    return index < pools_.size() ? pools_[index] : kNone;
  }
  Balancer& balancer(uint32_t index) override;
  bool take_hedge_token() override;
  void connect_failed(const PoolSnapshot& pool, const Backend& backend, const std::string& reason,
                      bool silent) override;
  size_t close_member_sessions(const BackendStats* member);
  void probe_member_sessions(const BackendStats* member, const net::DeadPeerOptions& probe);
  void session_closed(Session& s) override { finished_.push_back(s.id()); }
  void out_of_descriptors(const std::string& listener, const std::string& reason) override;

 private:
  struct Listening : Handler {
    Listening() : Handler(Kind::kListener) {}
    std::shared_ptr<const ListenerRuntime> runtime;
    net::Fd fd;  // invalid once retired
  };
  struct Timer {
    TimePoint when;
    uint64_t session_id;
    bool operator>(const Timer& o) const { return when > o.when; }
  };

  void accept_from(Listening& l);
  void pause_accepting();
  void resume_accepting();
  void drain_mailbox();
  void run_timers();
  int next_timeout_ms() const;
  void reap();

  const int index_;
  net::Fd epoll_;
  net::Fd wake_;  // eventfd: the mailbox has messages
  Handler wake_handler_{Handler::Kind::kMailbox};
  std::unordered_map<std::string, std::unique_ptr<Listening>> listeners_;  // by listener id
  // Removed by a reload during this event batch; freed after it, as later events may name them.
  std::vector<std::unique_ptr<Listening>> retired_;
  std::vector<PoolSnapshotPtr> pools_;
  std::vector<std::unique_ptr<Balancer>> balancers_;
  std::vector<uint64_t> balancer_versions_;
  WorkerCallbacks callbacks_;
  BufferPool buffers_;
  PipePool pipes_;
  std::unordered_map<uint64_t, std::unique_ptr<Session>> sessions_;
  std::vector<uint64_t> finished_;  // closed this round; deleted after the event batch
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  uint64_t next_session_id_ = 1;
  // Hedge budget: each new session earns a tenth of a hedge, up to a burst of kHedgeBurst, so
  // that a slow but healthy pool is not hit twice as hard.
  static constexpr double kHedgeBurst = 10;
  double hedge_tokens_ = kHedgeBurst;
  TimePoint now_{};
  bool stopping_ = false;
  // Out of file descriptors: listeners taken out of epoll until resume_at_, so that a
  // level-triggered listener does not spin; the warning is logged at most every kFdLogEvery.
  std::vector<std::string> paused_;
  TimePoint resume_at_{};
  TimePoint fd_warned_at_{};
  uint64_t fd_failures_ = 0;

  std::mutex mailbox_mutex_;  // guards mailbox_ only; never held on the connection path
  std::vector<std::function<void(Loop&)>> mailbox_;
};

Worker::Loop::Loop(int index, std::vector<ListenSocket> listeners,
                   std::vector<PoolSnapshotPtr> pools, WorkerCallbacks callbacks)
    : index_(index),
      epoll_(::epoll_create1(EPOLL_CLOEXEC)),
      wake_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      callbacks_(std::move(callbacks)) {
  if (!epoll_.valid() || !wake_.valid()) {
    log::error("worker {}: cannot create epoll/eventfd: {}", index_, net::errno_string(errno));
    std::abort();
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &wake_handler_;
  ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, wake_.get(), &ev);
  set_pools(std::move(pools));
  set_listeners(std::move(listeners));
}

Worker::Loop::~Loop() {
  sessions_.clear();  // sessions release their fds and counts
}

void Worker::Loop::set_pools(std::vector<PoolSnapshotPtr> pools) {
  pools_ = std::move(pools);
  balancers_.resize(pools_.size());
  balancer_versions_.resize(pools_.size(), 0);
}

void Worker::Loop::set_listeners(std::vector<ListenSocket> listeners) {
  std::unordered_map<std::string, std::unique_ptr<Listening>> next;
  for (ListenSocket& ls : listeners) {
    const std::string id = ls.listener_id.empty() ? ls.listener_name : ls.listener_id;
    auto runtime = std::make_shared<const ListenerRuntime>(
        ListenerRuntime{.name = ls.listener_name,
                        .pool_index = ls.pool_index,
                        .max_connections = ls.max_connections,
                        .idle_timeout = ls.idle_timeout,
                        .client_dead_peer = ls.client_dead_peer,
                        .stats = ls.stats});
    std::unique_ptr<Listening> l;
    if (!ls.fd.valid()) {
      auto old = listeners_.find(id);
      if (old == listeners_.end()) continue;  // nothing to keep: cannot happen by contract
      l = std::move(old->second);
      listeners_.erase(old);
    } else {
      l = std::make_unique<Listening>();
      l->fd = std::move(ls.fd);
      // Level-triggered: accept a bounded batch per wake-up, the rest on the next round.
      epoll_event lev{};
      lev.events = EPOLLIN;
      lev.data.ptr = static_cast<Handler*>(l.get());
      ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, l->fd.get(), &lev);
    }
    // Accepted sockets inherit these from the listening socket (net/socket_test.cc checks it):
    // set once here instead of six syscalls per connection.
    net::set_nodelay(l->fd.get());
    net::set_dead_peer_detection(l->fd.get(), runtime->client_dead_peer);
    l->runtime = std::move(runtime);
    next[id] = std::move(l);
  }
  for (auto& [id, old] : listeners_) {
    old->fd.reset();  // stops accepting; closing also removes it from epoll
    retired_.push_back(std::move(old));
  }
  listeners_ = std::move(next);
}

Balancer& Worker::Loop::balancer(uint32_t index) {
  const PoolSnapshot& p = *pools_[index];  // callers check the slot is not empty
  if (!balancers_[index] || balancer_versions_[index] != p.version) {
    balancers_[index] = make_balancer(p);
    balancer_versions_[index] = p.version;
  }
  return *balancers_[index];
}

bool Worker::Loop::take_hedge_token() {
  if (hedge_tokens_ < 1) return false;
  hedge_tokens_ -= 1;
  return true;
}

void Worker::Loop::connect_failed(const PoolSnapshot& pool, const Backend& backend,
                                  const std::string& reason, bool silent) {
  backend.stats->connect_failures.fetch_add(1, std::memory_order_relaxed);
  if (callbacks_.on_connect_failure) {
    callbacks_.on_connect_failure(
        {.pool = pool.name, .member_id = backend.member_id, .reason = reason, .silent = silent});
  }
}

size_t Worker::Loop::close_member_sessions(const BackendStats* member) {
  size_t closed = 0;
  for (auto& [id, s] : sessions_) {
    if (s->established() && s->member() == member) {
      s->close();
      ++closed;
    }
  }
  return closed;  // deleted after this event batch, like every closed session
}

void Worker::Loop::probe_member_sessions(const BackendStats* member,
                                         const net::DeadPeerOptions& probe) {
  for (auto& [id, s] : sessions_) {
    if (s->established() && s->member() == member) s->set_backend_dead_peer(probe);
  }
}

void Worker::Loop::post(std::function<void(Loop&)> fn) {
  {
    std::lock_guard lock(mailbox_mutex_);
    mailbox_.push_back(std::move(fn));
  }
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(wake_.get(), &one, sizeof one);
}

void Worker::Loop::drain_mailbox() {
  uint64_t count = 0;
  [[maybe_unused]] ssize_t n = ::read(wake_.get(), &count, sizeof count);
  std::vector<std::function<void(Loop&)>> batch;
  {
    std::lock_guard lock(mailbox_mutex_);
    batch.swap(mailbox_);
  }
  for (auto& fn : batch) fn(*this);
}

void Worker::Loop::accept_from(Listening& l) {
  if (!l.fd.valid()) return;  // retired earlier in this batch
  const ListenerRuntime& runtime = *l.runtime;
  for (int i = 0; i < 64; ++i) {
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
    if (runtime.stats->active.load(std::memory_order_relaxed) >=
        static_cast<uint64_t>(runtime.max_connections)) {
      runtime.stats->rejected.fetch_add(1, std::memory_order_relaxed);
      continue;  // closing at once tells the client; holding it would look like a hang
    }
    if (runtime.pool_index >= pools_.size() || !pools_[runtime.pool_index]) {
      runtime.stats->no_backend.fetch_add(1, std::memory_order_relaxed);
      continue;  // cannot happen by contract (a listener names a live pool); never crash on it
    }
    hedge_tokens_ = std::min(kHedgeBurst, hedge_tokens_ + 0.1);
    const uint64_t id = next_session_id_++;
    auto session = std::make_unique<Session>(
        *this, id, std::move(client),
        net::SocketAddress::from_sockaddr(reinterpret_cast<sockaddr*>(&ss), len), l.runtime);
    Session& s = *session;
    sessions_.emplace(id, std::move(session));
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

void Worker::Loop::run_timers() {
  if (!paused_.empty() && now_ >= resume_at_) resume_accepting();
  while (!timers_.empty() && timers_.top().when <= now_) {
    const Timer t = timers_.top();
    timers_.pop();
    auto it = sessions_.find(t.session_id);
    if (it != sessions_.end()) it->second->on_timer(now_);
  }
}

int Worker::Loop::next_timeout_ms() const {
  if (timers_.empty() && paused_.empty()) return -1;
  TimePoint next = timers_.empty() ? resume_at_ : timers_.top().when;
  if (!paused_.empty() && resume_at_ < next) next = resume_at_;
  const auto wait = next - now_;
  if (wait <= Duration::zero()) return 0;
  // Round up so that we do not wake a millisecond early and spin.
  return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(wait).count());
}

void Worker::Loop::reap() {
  for (uint64_t id : finished_) sessions_.erase(id);
  finished_.clear();
  retired_.clear();
}

void Worker::Loop::run() {
  constexpr int kMaxEvents = 256;
  epoll_event events[kMaxEvents];
  now_ = std::chrono::steady_clock::now();
  while (!stopping_) {
    const int n = ::epoll_wait(epoll_.get(), events, kMaxEvents, next_timeout_ms());
    now_ = std::chrono::steady_clock::now();
    if (n < 0 && errno != EINTR) {
      log::error("worker {}: epoll_wait: {}", index_, net::errno_string(errno));
      break;
    }
    for (int i = 0; i < n; ++i) {
      auto* h = static_cast<Handler*>(events[i].data.ptr);
      switch (h->kind) {
        case Handler::Kind::kListener:
          accept_from(*static_cast<Listening*>(h));
          break;
        case Handler::Kind::kMailbox:
          drain_mailbox();
          break;
        case Handler::Kind::kClient:
        case Handler::Kind::kBackend: {
          auto* side = static_cast<Side*>(h);
          side->session->on_event(*side, events[i].events);
          break;
        }
      }
    }
    run_timers();
    reap();
  }
  listeners_.clear();
  for (auto& [id, s] : sessions_) s->close();
  reap();
}

Worker::Worker(int index, std::vector<ListenSocket> listeners, std::vector<PoolSnapshotPtr> pools,
               WorkerCallbacks callbacks)
    : loop_(std::make_unique<Loop>(index, std::move(listeners), std::move(pools),
                                   std::move(callbacks))) {}

Worker::~Worker() { stop(); }

void Worker::start() {
  thread_ = std::thread([this] { loop_->run(); });
}

void Worker::publish(std::vector<PoolSnapshotPtr> pools) {
  post([pools = std::move(pools)](Loop& loop) mutable { loop.set_pools(std::move(pools)); });
}

void Worker::reconfigure(std::vector<PoolSnapshotPtr> pools, std::vector<ListenSocket> listeners) {
  // std::function needs a copyable callable; the sockets travel in a shared box.
  auto box = std::make_shared<std::vector<ListenSocket>>(std::move(listeners));
  post([pools = std::move(pools), box](Loop& loop) mutable {
    loop.set_pools(std::move(pools));
    loop.set_listeners(std::move(*box));
  });
}

void Worker::close_member_sessions(std::shared_ptr<const BackendStats> member,
                                   std::function<void(size_t)> done) {
  post([member = std::move(member), done = std::move(done)](Loop& loop) {
    const size_t n = loop.close_member_sessions(member.get());
    if (done) done(n);
  });
}

void Worker::probe_member_sessions(std::shared_ptr<const BackendStats> member,
                                   net::DeadPeerOptions probe) {
  post([member = std::move(member), probe](Loop& loop) {
    loop.probe_member_sessions(member.get(), probe);
  });
}

void Worker::stop() {
  if (!thread_.joinable()) return;
  post([](Loop& loop) { loop.request_stop(); });
  thread_.join();
}

void Worker::ping(std::function<void()> answered) {
  post([answered = std::move(answered)](Loop&) { answered(); });
}

void Worker::post(std::function<void(Loop&)> fn) { loop_->post(std::move(fn)); }

}  // namespace vigil::proxy
