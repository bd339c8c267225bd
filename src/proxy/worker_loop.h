// Worker::Loop: the worker thread's event loop, its listeners and sessions (worker.cc: the loop
// and the mailbox; worker_accept.cc: accepting and its pauses). Internal to proxy/; only the
// worker's own thread touches it, except post(), which any thread may call.
#pragma once

#include <sys/epoll.h>

#include <atomic>
#include <mutex>
#include <unordered_map>

#include "proxy/session.h"
#include "proxy/worker.h"

namespace vigil::proxy {

class Worker::Loop final : public SessionHost {
 public:
  Loop(int index, std::vector<ListenSocket> listeners, std::vector<PoolSnapshotPtr> pools,
       WorkerCallbacks callbacks, ConnectionRing& connection_log);
  ~Loop() override;

  void run();
  void post(std::function<void(Loop&)> fn);
  void set_pools(PoolSlots slots);
  void update_listeners(ListenerChanges changes);
  void request_stop() { stopping_ = true; }
  size_t stop_accepting();
  void when_idle(std::function<void()> idle) { idle_waiters_.push_back(std::move(idle)); }
  size_t cut_at_stop() const { return cut_at_stop_; }

  // SessionHost
  TimePoint now() const override { return now_; }
  int epoll_fd() const override { return epoll_.get(); }
  BufferPool& buffers() override { return buffers_; }
  PipePool& pipes() override { return pipes_; }
  void schedule(Session& s, TimePoint when) override {
    if (!s.closed()) timers_.schedule(s, when);
  }
  // Null for an index a reload has retired (a session may outlive its listener's pool).
  const PoolSnapshotPtr& pool(uint32_t index) const override {
    static const PoolSnapshotPtr kNone;
    return index < pools_.size() ? pools_[index] : kNone;
  }
  Balancer& balancer(uint32_t index) override;
  bool take_hedge_token() override;
  void connect_failed(const PoolSnapshot& pool, const Backend& backend, const std::string& reason,
                      bool silent, Duration waited, Duration limit) override;
  void member_suspect(const PoolSnapshot& pool, const Backend& backend) override;
  size_t close_member_sessions(const BackendStats* member, SessionEnd why);
  std::vector<LostSession> reset_sessions_on(const std::string& local_ip);  // worker_sessions.cc
  // Any thread: a session was accepted since the last session_changes() (set once per answer,
  // by the first such session; relaxed: a hint to ask sooner, the answer itself is posted).
  bool has_new_sessions() const { return new_sessions_.load(std::memory_order_relaxed); }
  void probe_member_sessions(const BackendStats* member, const net::DeadPeerOptions& probe);
  SessionListing list_sessions(const std::vector<const BackendStats*>* members, size_t limit) const;
  SessionChanges session_changes();  // worker_sessions.cc
  void session_closed(Session& s) override {
    timers_.remove(s);
    finished_.push_back(s.id());
    // Listed to the peers as opened (ids below synced_below_ that lived to be listed): tell
    // them it is gone.
    if (s.id() < synced_below_) closed_since_sync_.push_back(s.id());
    if (s.logged()) connection_log_.push(s.record(now_));
  }
  void out_of_descriptors(const std::string& listener, const std::string& reason) override;
  void proxy_header_refused(const std::string& listener, const net::SocketAddress& peer,
                            std::string_view reason) override;

 private:
  struct Listening : Handler {
    Listening() : Handler(Kind::kListener) {}
    std::string id;  // the listener's
    std::shared_ptr<const ListenerRuntime> runtime;
    net::Fd fd;  // invalid once retired
  };
  void accept_from(Listening& l);
  void retire(std::unique_ptr<Listening> l);
  void pause_accepting();
  void resume_accepting();
  void hold_at_limit(Listening& l);
  void resume_below_limit();
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
  ConnectionRing& connection_log_;
  BufferPool buffers_;
  PipePool pipes_;
  std::unordered_map<uint64_t, std::unique_ptr<Session>> sessions_;
  std::vector<uint64_t> finished_;  // closed this round; deleted after the event batch
  // Each live session at its next wake-up, at most once; a closed one leaves at once.
  WakeQueue<Session> timers_;
  uint64_t next_session_id_ = 1;
  // For session_changes(), once first asked: the sessions accepted since the last answer, and
  // those closed that an answer had listed. Every session with an id below synced_below_ that
  // was open at the last answer was listed in it.
  bool tracking_sessions_ = false;
  uint64_t synced_below_ = 0;
  std::vector<uint64_t> opened_since_sync_;
  std::vector<uint64_t> closed_since_sync_;
  std::atomic<bool> new_sessions_ = false;
  // Hedge budget: each new session earns a tenth of a hedge, up to a burst of kHedgeBurst, so
  // that a slow but healthy pool is not hit twice as hard.
  static constexpr double kHedgeBurst = 10;
  double hedge_tokens_ = kHedgeBurst;
  TimePoint now_{};
  bool stopping_ = false;
  bool accepting_ = true;  // false after stop_accepting(): a graceful stop is under way
  std::vector<std::function<void()>> idle_waiters_;  // run by reap() once sessions_ is empty
  size_t cut_at_stop_ = 0;
  // Out of file descriptors: listeners taken out of epoll until resume_at_, so that a
  // level-triggered listener does not spin; the warning is logged at most every kFdLogEvery.
  std::vector<std::string> paused_;
  TimePoint resume_at_{};
  // Listeners with queue_at_limit out of epoll while they hold max_connections: their new
  // connections wait in the kernel's backlog. Taken back when a session of this worker ends,
  // and every kFullRecheck, since the limit is shared with the other workers and a session
  // ending there frees the slot too.
  static constexpr Duration kFullRecheck = std::chrono::milliseconds(20);
  std::vector<std::string> full_;
  TimePoint full_check_at_{};
  TimePoint fd_warned_at_{};
  uint64_t fd_failures_ = 0;
  // Connections refused for their PROXY header (or its absence): one line at most every
  // kRefusalLogEvery per worker, with the count of those not told, as a flood of bad clients
  // must not become a flood of log lines.
  TimePoint proxy_warned_at_{};
  uint64_t proxy_refusals_ = 0;

  std::mutex mailbox_mutex_;  // guards mailbox_ only; never held on the connection path
  std::vector<std::function<void(Loop&)>> mailbox_;
};

}  // namespace vigil::proxy
