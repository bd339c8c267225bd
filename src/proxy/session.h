// Session: one proxied TCP connection, client leg and backend leg, from connect to close. Owned by
// the worker that accepted it and touched only on that worker's thread; no locks. The worker
// feeds it epoll events and timer expiries. It reads top to bottom: start() picks a member and
// connects (session_connect.cc: retry on another member, hedge a slow connect), then pump() moves
// bytes each way with half-close. Until the member's first byte, the client's first flight is kept
// so that a member that never answers, or resets, is replaced by another (session_replay.cc).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/wake_queue.h"
#include "net/address.h"
#include "net/cidr.h"
#include "net/cidr_table.h"
#include "net/fd.h"
#include "net/socket.h"
#include "proxy/balancer.h"
#include "proxy/buffer_pool.h"
#include "proxy/connection_log.h"
#include "proxy/pipe_pool.h"
#include "proxy/snapshot.h"

namespace vigil::proxy {

// What an epoll event's data.ptr points at; the kind says which object it is.
struct Handler {
  enum class Kind : uint8_t { kListener, kMailbox, kClient, kBackend };
  explicit Handler(Kind k) : kind(k) {}
  Kind kind;
};

class Session;

// One leg of a session. Flags remember edge-triggered readiness until a syscall says EAGAIN.
struct Side : Handler {
  Side(Kind k, Session* s) : Handler(k), session(s) {}
  Session* session;
  net::Fd fd;
  bool readable = false;
  bool writable = false;
  bool hup = false;         // the event said RDHUP/HUP/ERR: read until 0 or an error
  bool read_eof = false;    // the peer shut its write side
  bool write_shut = false;  // we shut our write side toward the peer
  bool failed = false;      // a recv or send on this leg failed (a reset, a broken pipe)
};

struct ListenerRuntime {
  std::string name;
  uint32_t pool_index = 0;
  int max_connections = 0;
  bool queue_at_limit = false;  // ListenSocket's
  Duration idle_timeout{};
  net::DeadPeerOptions client_dead_peer;
  bool accept_proxy = false;
  std::vector<net::Cidr> trusted_sources;
  Duration proxy_header_timeout{};
  std::shared_ptr<const net::CidrTable> allowed_sources;  // null: every client
  std::shared_ptr<ListenerStats> stats;
  bool log_connections = false;  // a ConnectionRecord per session end (connection_log.h)
};

// The services a session needs from its worker.
class SessionHost {
 public:
  virtual ~SessionHost() = default;
  virtual TimePoint now() const = 0;
  virtual int epoll_fd() const = 0;
  virtual BufferPool& buffers() = 0;
  virtual PipePool& pipes() = 0;
  // Wakes `s` (Session::on_timer) at `when` or earlier; after each wake-up the host queues the
  // session's next_wake(), so a deadline later than one already queued may be dropped here.
  virtual void schedule(Session& s, TimePoint when) = 0;
  virtual const PoolSnapshotPtr& pool(uint32_t index) const = 0;
  virtual Balancer& balancer(uint32_t index) = 0;
  virtual bool take_hedge_token() = 0;  // the hedge budget: false when hedging too often
  virtual void connect_failed(const PoolSnapshot& pool, const Backend& backend,
                              const std::string& reason, bool silent, Duration waited,
                              Duration limit) = 0;
  // A first flight to `backend` has waited Session::suspect_after() without an answer; the host
  // passes it on, at most once per member per first_byte_timeout.
  virtual void member_suspect(const PoolSnapshot& pool, const Backend& backend) = 0;
  // No socket could be made for a backend (out of descriptors): no member is to blame.
  virtual void out_of_descriptors(const std::string& listener, const std::string& reason) = 0;
  // A connection to an accept_proxy listener was closed for want of a good PROXY header; the
  // host says so, with a bound on how often.
  virtual void proxy_header_refused(const std::string& listener, const net::SocketAddress& peer,
                                    std::string_view reason) = 0;
  virtual void session_closed(Session& s) = 0;
};

class Session {
 public:
  // Client bytes kept for a replay until the member's first byte: a TLS first flight. Past it,
  // the session is not replayed.
  static constexpr uint32_t kFirstFlightCap = 16 * 1024;
  // How long a first flight waits unanswered before its member is reported suspect (checked at
  // once, still in rotation). An API server answers a ClientHello in milliseconds, so a tenth of
  // first_byte_timeout (100 ms by default) is far past a healthy answer even on a loaded host;
  // and a check started then, whose timeout is about first_byte_timeout, has nearly run out when
  // the first-byte timeout reports the member silent: both pieces of evidence are in at 1.1
  // first_byte_timeout, not 2. (A quarter, 1.25, left a hung master's watch gap too close to the
  // 3 s it is promised: docs/failover.md.) A false suspicion costs one check.
  static constexpr Duration suspect_after(Duration first_byte_timeout) {
    return first_byte_timeout / 10;
  }

  Session(SessionHost& host, uint64_t id, net::Fd client, const net::SocketAddress& client_address,
          std::shared_ptr<const ListenerRuntime> listener);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void start();
  void on_event(Side& side, uint32_t events);
  void on_timer(TimePoint now);
  // The earliest time on_timer() has something to do, after all that was due at its last call
  // was done; zero for none. Each deadline is derived from the state, so a session holds one
  // entry in its host's queue however many deadlines it has.
  TimePoint next_wake() const;
  // The session's entry in its host's WakeQueue.
  WakeSlot& wake_slot() { return wake_slot_; }
  void close();
  // Closes the session for a cause that its legs do not show (a stop, an operator's kill).
  void close_for(SessionEnd why) {
    ending(why);
    close();
  }
  // Closes it with a reset to the client rather than a FIN (session.cc): the client's next
  // packet, or this one, tells it at once that the connection is gone.
  void reset_client_for(SessionEnd why);

  uint64_t id() const { return id_; }
  // The client's address: the connection's peer, or the one its PROXY header carried.
  net::SocketAddress client_address() const {
    return net::SocketAddress::from_ip_bytes({client_ip_.data(), client_ip_size_}, client_port_);
  }
  bool closed() const { return state_ == State::kClosed; }
  bool established() const { return state_ == State::kPumping; }
  // The control thread takes this session's member down (its sessions closed so that clients
  // reconnect elsewhere). A session still waiting for the member's first byte moves its first
  // flight to another member when it may, as after a silent member: its client never saw the
  // member, so it needs no reconnect. Any other is closed. True when it was closed.
  bool leave_member();
  // leave_member(), with the cause the connection log records if it closes the session:
  // kMemberDown (marked down, maintenance, silent) or kKilled (an operator's kill).
  bool leave_member_for(SessionEnd why) {
    leave_cause_ = why;
    const bool closed = leave_member();
    leave_cause_ = SessionEnd::kMemberDown;
    return closed;
  }
  // The connected member's counters, which also identify it; null before connecting.
  const BackendStats* member() const { return backend_stats_.get(); }
  int backend_fd() const { return backend_ ? backend_->fd.get() : -1; }
  // What this session was, for the connection log: ended at `now`. After close() only.
  ConnectionRecord record(TimePoint now) const;
  bool logged() const { return listener_.log_connections; }
  // Applies `options` to the backend leg now (established sessions only), replacing the ones
  // that were still to come.
  void set_backend_dead_peer(const net::DeadPeerOptions& options);
  // For listings (GET /v1/sessions): read on the worker's thread, never on the hot path.
  const std::shared_ptr<BackendStats>& member_stats() const { return backend_stats_; }
  const std::string& listener_name() const { return listener_.name; }
  int client_fd() const { return client_.fd.get(); }
  Duration age(TimePoint now) const;

 private:
  // kReadingHeader only on accept_proxy listeners: until the client's PROXY header is in.
  enum class State { kReadingHeader, kConnecting, kPumping, kClosed };

  // One connect in flight. Two exist at once only while a slow connect is hedged.
  struct Attempt {
    explicit Attempt(Session* s) : side(Handler::Kind::kBackend, s) {}
    Side side;
    int candidate = -1;  // index into pool_->candidates
    TimePoint started{};
    TimePoint deadline{};
    bool active() const { return side.fd.valid(); }
  };

  // session_connect.cc
  void connect_first();
  bool start_attempt(Attempt& a, bool hedge = false);
  void attempt_failed(Attempt& a, const std::string& reason, bool silent);
  void attempt_connected(Attempt& a);
  void on_connect_event(Attempt& a, uint32_t events);
  void on_connect_timer(TimePoint now);
  // `failed`: the member whose failure left the session without one (null: none was to blame).
  void give_up(BackendStats* failed = nullptr);
  // Reports a member's failed connect (or first flight) to the host, counted on the listener too.
  // `waited`: how long it went unanswered, and `limit` the wait allowed it (ConnectFailure).
  void member_failed(const Backend& b, const std::string& reason, bool silent, Duration waited = {},
                     Duration limit = {});
  void schedule_hedge();
  Attempt& other(const Attempt& a) { return &a == &attempts_[0] ? attempts_[1] : attempts_[0]; }

  // One direction's bytes in flight: in a buffer (user space) or, once the direction streams, in
  // a pipe (splice, kernel only). At most one of the two at a time.
  struct Flow {
    Buffer* buf = nullptr;
    Pipe* pipe = nullptr;
    bool filled = false;  // the last read filled the whole buffer: the direction streams
    // Sent bytes stay in the buffer (start is not rewound, the buffer not given back, no splice)
    // so that they can be sent again: the first flight, until the member answers.
    bool keep = false;
  };

  // session_proxy_header.cc
  void read_proxy_header();
  void refuse_proxy_header(std::string_view reason);
  bool send_proxy_header(const Side& member, model::ProxyProtocol version);

  // session_replay.cc
  void watch_first_flight();
  void first_flight_sent();
  void first_byte_received();
  void stop_watching_first_flight();
  bool first_flight_failed(const std::string& reason, bool silent);
  bool move_first_flight(Attempt& failed, bool silent);
  bool first_byte_overdue(TimePoint now) const;
  void report_if_suspect(TimePoint now);
  void move_to_latest_pool(const Attempt& failed);
  // The attempt whose socket is the session's member side.
  Attempt& connected_attempt() {
    return backend_ == &attempts_[0].side ? attempts_[0] : attempts_[1];
  }
  // When the first flight went out: the first-byte deadline less its timeout.
  TimePoint first_flight_sent_at() const { return phase_deadline_ - pool_->first_byte_timeout; }
  // When the first flight's member is to be reported suspect; zero when no report is pending.
  TimePoint suspect_at() const;

  // session.cc
  bool pump(Side& src, Side& dst, Flow& flow, std::atomic<uint64_t>* bytes);
  // session_splice.cc
  bool splice_pump(Side& src, Side& dst, Flow& flow, uint64_t& moved);
  void finish_pump(Side& src, Side& dst, Flow& flow, uint64_t moved, std::atomic<uint64_t>* bytes);
  void after_pump(bool ok);
  bool arm(Side& side);
  void release();  // closes fds and gives back buffers and counts, without telling the host

  SessionHost& host_;
  const uint64_t id_;
  // Shared so that a reload may replace or remove the listener while this session lives on.
  const std::shared_ptr<const ListenerRuntime> listener_ptr_;
  const ListenerRuntime& listener_;
  State state_ = State::kConnecting;
  // When the session began, in milliseconds of the steady clock modulo 2^32: it fits the
  // padding after state_ (a session costs no byte more), and age() is right for any session
  // younger than 49 days, however long the process has run.
  uint32_t started_ms_ = 0;
  Side client_;
  std::array<Attempt, 2> attempts_;
  Side* backend_ = nullptr;  // the attempt that connected first
  Flow up_;                  // client -> backend
  Flow down_;                // backend -> client
  // The client's address bytes (4 or 16), kept only for source_ip picks and the connection log:
  // a whole sockaddr would add 128 bytes to every idle session.
  std::array<char, 16> client_ip_{};
  uint8_t client_ip_size_ = 0;
  // For the PROXY header vigil sends and the connection log, in what would be padding: the
  // client's port, how the session ended (set where the cause is known, else inferred at
  // close()), connects after the first.
  uint16_t client_port_ = 0;
  SessionEnd end_ = SessionEnd::kClientClose;
  bool end_set_ : 1 = false;
  bool first_eof_member_ : 1 = false;  // the member shut its side before the client did
  bool replayed_ : 1 = false;
  bool suspect_reported_ : 1 = false;  // this first flight's member, once (session_replay.cc)
  uint8_t retries_ : 4 = 0;            // capped at kMaxRetriesLogged
  static constexpr uint8_t kMaxRetriesLogged = 15;
  // The backend leg's dead-peer options wait until the session is a second old (on_timer): a
  // short session would never use them, and five setsockopt() calls were a tenth of what a
  // one-request connection costs. Keepalive probes start seconds later anyway.
  bool dead_peer_pending_ = false;
  // From start() until the member's first byte, while first_byte_timeout applies.
  bool awaiting_first_byte_ = false;

  // While connecting, and while awaiting the member's first byte: the snapshot the tried indices
  // refer to, and what was tried.
  PoolSnapshotPtr pool_;
  static constexpr int kMaxTried = 16;
  std::array<uint32_t, kMaxTried> tried_{};  // NOLINT: indices into pool_->candidates
  // Bytes, not ints (at most kMaxTried and 1 + retries, 11): wake_slot_ fits where they were.
  uint8_t tried_count_ = 0;
  uint8_t attempts_made_ = 0;
  WakeSlot wake_slot_;
  // While reading the client's PROXY header: when it is overdue. While connecting: when to
  // hedge. While awaiting the member's first byte: when it is overdue
  // (first_byte_timeout after the client's first bytes went out to it). Zero: neither.
  TimePoint phase_deadline_{};

  std::shared_ptr<BackendStats> backend_stats_;  // set once connected
  TimePoint last_activity_{};

  // For the connection log and the disruption counts (a session closed with or without answers).
  uint64_t bytes_up_ = 0;    // client -> members
  uint64_t bytes_down_ = 0;  // members -> client
  TimePoint accepted_at_{};
  // When the last member connect that completed did, in microseconds after the accept plus one
  // (0: none), capped: 4 bytes instead of a TimePoint's 8.
  uint32_t connected_us_ = 0;
  // When the backend leg's dead-peer options are due (dead_peer_pending_): a second after the
  // connect, or at the idle timeout if that is sooner.
  TimePoint dead_peer_at() const;
  void note_eof(const Side& src) {
    if (!client_.read_eof && (backend_ == nullptr || !backend_->read_eof)) {
      first_eof_member_ = &src != &client_;
    }
  }
  // What leave_member() records as kMemberDown: set only during leave_member_for().
  SessionEnd leave_cause_ = SessionEnd::kMemberDown;
  // Records why the session ends, unless a cause was set already.
  void ending(SessionEnd why) {
    if (why == SessionEnd::kMemberDown) why = leave_cause_;
    if (!end_set_) end_ = why;
    end_set_ = true;
  }
};

}  // namespace vigil::proxy
