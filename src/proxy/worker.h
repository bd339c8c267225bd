// Worker: one data-plane thread with its own epoll loop and its own SO_REUSEPORT listening socket
// per listener. It owns every session it accepts for the session's whole life. The control
// thread talks to it only through post() (a mailbox woken by an eventfd); the per-connection
// path takes no lock.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "net/cidr.h"
#include "net/cidr_table.h"
#include "net/fd.h"
#include "net/socket.h"
#include "proxy/connection_log.h"
#include "proxy/session_info.h"
#include "proxy/snapshot.h"

namespace vigil::proxy {

struct ListenSocket {
  std::string listener_id;  // identity across reconfigurations; defaults to the name
  std::string listener_name;
  net::Fd fd;
  uint32_t pool_index = 0;
  int max_connections = 50000;
  // At max_connections: leave new connections in the backlog (true) or close them.
  bool queue_at_limit = false;
  Duration idle_timeout = std::chrono::hours(1);
  net::DeadPeerOptions client_dead_peer;
  // Connections start with a PROXY header from one of trusted_sources (model::Listener).
  bool accept_proxy = false;
  std::vector<net::Cidr> trusted_sources;
  Duration proxy_header_timeout = std::chrono::seconds(3);
  // Clients outside these networks are closed at accept (model::Listener::allowed_cidrs);
  // null: every client. Built once per configuration, shared by the workers.
  std::shared_ptr<const net::CidrTable> allowed_sources;
  std::shared_ptr<ListenerStats> stats;  // shared by the workers that serve this listener
  bool log_connections = false;
};

// A client connection on an address this host no longer holds: `local` is the address:port the
// client connected to, `client` the client's own (its connection's peer, not a PROXY header's).
struct LostSession {
  net::SocketAddress local;
  net::SocketAddress client;
};

// What a worker's client sessions became since it was last asked (Worker::session_changes()),
// for the peers of a pair or fleet (daemon/peer_sync.h). The first answer lists every session.
struct OpenedSession {
  uint64_t id = 0;
  net::SocketAddress local;   // the address:port the client connected to
  net::SocketAddress client;  // the client's own, as for LostSession
};
struct SessionChanges {
  int worker = 0;
  std::vector<OpenedSession> opened;  // still open when asked
  std::vector<uint64_t> closed;       // ids an earlier answer listed as opened
};

// What a reconfiguration changes of a worker's listeners; those it does not name run on as they
// are. Ten thousand listeners in one process are not all sent again for a change to one.
struct ListenerChanges {
  // New listeners, and listeners with new settings: a valid fd is new (or replaces the socket
  // of the listener with the same id: it was bound again), none keeps the socket and takes the
  // settings.
  std::vector<ListenSocket> set;
  std::vector<std::string> removed;  // stop accepting; the sessions they accepted live on
};

struct WorkerCallbacks {
  // Runs on the worker thread; must only hand the event over (e.g. asio::post to the control
  // thread), never block.
  std::function<void(ConnectFailure)> on_connect_failure;
  // At most once per member per first_byte_timeout (and per second).
  std::function<void(MemberSuspect)> on_suspect;
};

class Worker {
 public:
  Worker(int index, std::vector<ListenSocket> listeners, std::vector<PoolSnapshotPtr> pools,
         WorkerCallbacks callbacks);
  ~Worker();  // stops and joins
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void start();
  // Any thread. The pools `slots` sets replace the old ones at their index (the listener's
  // pool_index); the others stay. A whole table (a vector) replaces the table.
  void publish(PoolSlots slots);
  void publish(const std::vector<PoolSnapshotPtr>& pools) { publish(PoolSlots::all(pools)); }
  // Any thread. The pools, as publish(), and the listeners `changes` names; the others stay. A
  // removed listener stops accepting; the sessions it accepted live on.
  void update(PoolSlots slots, ListenerChanges changes);
  void update(const std::vector<PoolSnapshotPtr>& pools, ListenerChanges changes) {
    update(PoolSlots::all(pools), std::move(changes));
  }
  // Members are named by their counters (the BackendStats in their snapshots).
  // Any thread. Closes this worker's established sessions to the member, so their clients
  // reconnect through a healthy one; `done` then runs on the worker thread with the count.
  // `why` is the end the connection log records: kMemberDown, or kKilled for an operator's kill.
  void close_member_sessions(std::shared_ptr<const BackendStats> member,
                             std::function<void(size_t)> done,
                             SessionEnd why = SessionEnd::kMemberDown);
  // Any thread. This host no longer holds the address `local_ip` (SocketAddress::ip_bytes(); it
  // moved to another node): resets this worker's sessions whose client connected to it, so that
  // each client reconnects at once (to the address's new holder) instead of waiting on its own
  // timer for a peer that no longer answers from there. `done` then runs on the worker thread
  // with each reset session's two ends: the host's reset may never leave it (the address is
  // gone), so the caller tickles them (net/tickle.h).
  void reset_sessions_on(std::string local_ip, std::function<void(std::vector<LostSession>)> done);
  // Any thread. What this worker's sessions became since the last call (SessionChanges); `done`
  // runs on the worker thread. Until the first call the worker keeps no such record.
  void session_changes(std::function<void(SessionChanges)> done);
  // Any thread, lock-free: a session was accepted since session_changes() last answered, so a
  // peer does not know it yet. Cheap enough to poll every few milliseconds.
  bool has_new_sessions() const;
  // Any thread. The member did not answer a connect: its sessions may be dead without a FIN or
  // RST. Tightens keepalive on their backend legs so that the kernel finds out in seconds.
  void probe_member_sessions(std::shared_ptr<const BackendStats> member,
                             net::DeadPeerOptions probe);
  // Any thread. Lists this worker's established sessions to `members` (all of them when null),
  // at most `limit` of them (worker_sessions.cc); `done` then runs on the worker thread.
  void list_sessions(std::shared_ptr<const std::vector<const BackendStats*>> members, size_t limit,
                     std::function<void(SessionListing)> done);
  // Any thread. `answered` runs on the worker thread once its loop has got this far through its
  // mailbox: the watchdog's proof that the loop still turns.
  void ping(std::function<void()> answered);
  // Any thread. A graceful stop's first step: closes this worker's listening sockets (new
  // connects are refused once every worker has) and keeps its sessions passing bytes; `done`
  // then runs on the worker thread with how many it holds. Later update()s add no listener.
  void stop_accepting(std::function<void(size_t)> done);
  // Any thread. `idle` runs once on the worker thread when the worker holds no session (at once
  // when it holds none): how a graceful stop learns that it may end early.
  void when_idle(std::function<void()> idle);
  // Any thread. Closes the listeners and every session, then the thread ends; joins.
  void stop();
  // The records of this worker's logged sessions that ended: the control thread is the one
  // consumer (it drains them on a timer and writes the lines).
  ConnectionRing& connection_log() { return *connection_log_; }
  // How many sessions stop() closed (cut rather than ended on their own). After stop() only.
  size_t sessions_cut_at_stop() const { return cut_at_stop_; }

 private:
  class Loop;
  void post(std::function<void(Loop&)> fn);

  // Before loop_, which writes to it until the thread ends.
  std::unique_ptr<ConnectionRing> connection_log_ = std::make_unique<ConnectionRing>();
  std::unique_ptr<Loop> loop_;
  std::thread thread_;
  size_t cut_at_stop_ = 0;  // written by the loop's thread before it ends; read after join
};

}  // namespace vigil::proxy
