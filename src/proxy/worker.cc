#include "proxy/worker.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "base/log.h"
#include "net/socket.h"
#include "proxy/worker_loop.h"

namespace vigil::proxy {

Worker::Loop::Loop(int index, std::vector<ListenSocket> listeners,
                   std::vector<PoolSnapshotPtr> pools, WorkerCallbacks callbacks,
                   ConnectionRing& connection_log)
    : index_(index),
      epoll_(::epoll_create1(EPOLL_CLOEXEC)),
      wake_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      callbacks_(std::move(callbacks)),
      connection_log_(connection_log) {
  if (!epoll_.valid() || !wake_.valid()) {
    log::error("worker {}: cannot create epoll/eventfd: {}", index_, net::errno_string(errno));
    std::abort();
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &wake_handler_;
  ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, wake_.get(), &ev);
  set_pools(PoolSlots::all(pools));
  update_listeners({.set = std::move(listeners)});
}

Worker::Loop::~Loop() {
  timers_.clear();    // it points at the sessions
  sessions_.clear();  // sessions release their fds and counts
}

void Worker::Loop::set_pools(PoolSlots slots) {
  if (slots.whole) pools_.clear();
  pools_.resize(std::max(pools_.size(), slots.size));
  for (auto& [i, pool] : slots.set) {
    if (i < pools_.size()) pools_[i] = std::move(pool);
  }
  balancers_.resize(pools_.size());
  balancer_versions_.resize(pools_.size(), 0);
}

namespace {

const std::string& id_of(const ListenSocket& ls) {
  return ls.listener_id.empty() ? ls.listener_name : ls.listener_id;
}

}  // namespace

void Worker::Loop::update_listeners(ListenerChanges changes) {
  if (!accepting_) return;  // stopping: the sockets given are closed with `changes`
  for (const std::string& id : changes.removed) {
    if (auto node = listeners_.extract(id)) retire(std::move(node.mapped()));
  }
  for (ListenSocket& ls : changes.set) {
    const std::string id = id_of(ls);
    auto runtime = std::make_shared<const ListenerRuntime>(
        ListenerRuntime{.name = ls.listener_name,
                        .pool_index = ls.pool_index,
                        .max_connections = ls.max_connections,
                        .queue_at_limit = ls.queue_at_limit,
                        .idle_timeout = ls.idle_timeout,
                        .client_dead_peer = ls.client_dead_peer,
                        .accept_proxy = ls.accept_proxy,
                        .trusted_sources = ls.trusted_sources,
                        .proxy_header_timeout = ls.proxy_header_timeout,
                        .allowed_sources = ls.allowed_sources,
                        .stats = ls.stats,
                        .log_connections = ls.log_connections});
    auto old = listeners_.find(id);
    std::unique_ptr<Listening>* slot = nullptr;
    if (!ls.fd.valid()) {
      if (old == listeners_.end()) continue;  // nothing to keep: cannot happen by contract
      slot = &old->second;
    } else {
      if (old != listeners_.end()) retire(std::move(old->second));  // bound again
      auto l = std::make_unique<Listening>();
      l->id = id;
      l->fd = std::move(ls.fd);
      // Level-triggered: accept a bounded batch per wake-up, the rest on the next round.
      epoll_event lev{};
      lev.events = EPOLLIN;
      lev.data.ptr = static_cast<Handler*>(l.get());
      ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, l->fd.get(), &lev);
      slot = &listeners_[id];
      *slot = std::move(l);
    }
    Listening& l = **slot;
    // Accepted sockets inherit these from the listening socket (net/socket_test.cc checks it):
    // set once here instead of six syscalls per connection.
    net::set_nodelay(l.fd.get());
    net::set_dead_peer_detection(l.fd.get(), runtime->client_dead_peer);
    l.runtime = std::move(runtime);
  }
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
                                  const std::string& reason, bool silent, Duration waited,
                                  Duration limit) {
  backend.stats->connect_failures.fetch_add(1, std::memory_order_relaxed);
  if (callbacks_.on_connect_failure) {
    callbacks_.on_connect_failure({.pool = pool.name,
                                   .member_id = backend.member_id,
                                   .reason = reason,
                                   .silent = silent,
                                   .waited = waited,
                                   .limit = limit});
  }
}

void Worker::Loop::member_suspect(const PoolSnapshot& pool, const Backend& backend) {
  // At most one check a second per member for suspicion alone, like a fast_interval: a slow
  // member's late answers must not turn into a stream of checks against it.
  constexpr Duration kSuspectEvery = std::chrono::seconds(1);
  if (!callbacks_.on_suspect ||
      !backend.stats->take_suspect_report(now_, std::max(pool.first_byte_timeout, kSuspectEvery))) {
    return;
  }
  callbacks_.on_suspect({.pool = pool.name,
                         .member_id = backend.member_id,
                         .waited = Session::suspect_after(pool.first_byte_timeout),
                         .limit = pool.first_byte_timeout});
}

size_t Worker::Loop::close_member_sessions(const BackendStats* member, SessionEnd why) {
  size_t closed = 0;
  for (auto& [id, s] : sessions_) {
    if (s->established() && s->member() == member && s->leave_member_for(why)) ++closed;
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

void Worker::Loop::run_timers() {
  if (!paused_.empty() && now_ >= resume_at_) resume_accepting();
  if (!full_.empty() && now_ >= full_check_at_) resume_below_limit();
  while (Session* s = timers_.pop_due(now_)) {
    s->on_timer(now_);
    // Never at or before now: a deadline that on_timer() left due would spin this loop.
    const TimePoint next = s->next_wake();
    if (next != TimePoint{}) schedule(*s, std::max(next, now_ + std::chrono::milliseconds(1)));
  }
}

int Worker::Loop::next_timeout_ms() const {
  if (timers_.empty() && paused_.empty() && full_.empty()) return -1;
  TimePoint next = !timers_.empty()   ? timers_.next()
                   : !paused_.empty() ? resume_at_
                                      : full_check_at_;
  if (!paused_.empty() && resume_at_ < next) next = resume_at_;
  if (!full_.empty() && full_check_at_ < next) next = full_check_at_;
  const auto wait = next - now_;
  if (wait <= Duration::zero()) return 0;
  // Round up so that we do not wake a millisecond early and spin.
  return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(wait).count());
}

void Worker::Loop::reap() {
  for (uint64_t id : finished_) sessions_.erase(id);
  // A session of this worker ended: a listener held at its limit may take the next one now.
  if (!finished_.empty() && !full_.empty()) resume_below_limit();
  finished_.clear();
  retired_.clear();
  if (!idle_waiters_.empty() && sessions_.empty()) {
    auto waiters = std::move(idle_waiters_);
    idle_waiters_.clear();
    for (auto& idle : waiters) idle();
  }
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
  cut_at_stop_ = sessions_.size();
  for (auto& [id, s] : sessions_) s->close_for(SessionEnd::kStopped);
  idle_waiters_.clear();  // they answer a graceful stop that this stop overrides
  reap();
}

Worker::Worker(int index, std::vector<ListenSocket> listeners, std::vector<PoolSnapshotPtr> pools,
               WorkerCallbacks callbacks)
    : loop_(std::make_unique<Loop>(index, std::move(listeners), std::move(pools),
                                   std::move(callbacks), *connection_log_)) {}

Worker::~Worker() { stop(); }

void Worker::start() {
  thread_ = std::thread([this] { loop_->run(); });
}

void Worker::publish(PoolSlots slots) {
  post([slots = std::move(slots)](Loop& loop) mutable { loop.set_pools(std::move(slots)); });
}

void Worker::update(PoolSlots slots, ListenerChanges changes) {
  // std::function needs a copyable callable; the sockets travel in a shared box.
  auto box = std::make_shared<ListenerChanges>(std::move(changes));
  post([slots = std::move(slots), box](Loop& loop) mutable {
    loop.set_pools(std::move(slots));
    loop.update_listeners(std::move(*box));
  });
}

void Worker::close_member_sessions(std::shared_ptr<const BackendStats> member,
                                   std::function<void(size_t)> done, SessionEnd why) {
  post([member = std::move(member), done = std::move(done), why](Loop& loop) {
    const size_t n = loop.close_member_sessions(member.get(), why);
    if (done) done(n);
  });
}

void Worker::reset_sessions_on(std::string local_ip,
                               std::function<void(std::vector<LostSession>)> done) {
  post([ip = std::move(local_ip), done = std::move(done)](Loop& loop) {
    std::vector<LostSession> lost = loop.reset_sessions_on(ip);
    if (done) done(std::move(lost));
  });
}

void Worker::probe_member_sessions(std::shared_ptr<const BackendStats> member,
                                   net::DeadPeerOptions probe) {
  post([member = std::move(member), probe](Loop& loop) {
    loop.probe_member_sessions(member.get(), probe);
  });
}

void Worker::stop_accepting(std::function<void(size_t)> done) {
  post([done = std::move(done)](Loop& loop) {
    const size_t n = loop.stop_accepting();
    if (done) done(n);
  });
}

void Worker::when_idle(std::function<void()> idle) {
  post([idle = std::move(idle)](Loop& loop) { loop.when_idle(idle); });
}

void Worker::stop() {
  if (!thread_.joinable()) return;
  post([](Loop& loop) { loop.request_stop(); });
  thread_.join();
  cut_at_stop_ = loop_->cut_at_stop();
}

void Worker::ping(std::function<void()> answered) {
  post([answered = std::move(answered)](Loop&) { answered(); });
}

void Worker::post(std::function<void(Loop&)> fn) { loop_->post(std::move(fn)); }

}  // namespace vigil::proxy
