// The first flight: from start() until the member's first byte, a session keeps what the client
// sent (up to kFirstFlightCap, a TLS first flight) in its client -> member buffer. A member that
// takes the connection and never answers (a stopped process whose kernel still completes
// handshakes from the backlog), or closes or resets before its first byte, is reported like a
// failed connect, and the session connects to another member (start_attempt: the same tried list
// and retries budget) and sends the kept bytes again: the client sees a delay, not a hang.
//
// What happens at the edges, and why:
// - The clock starts when the client's first bytes went out to the member, not at connect: with
//   a server-first protocol (SSH, SMTP) a member that waits has not hung, and its first byte (the
//   banner) ends the watch before the client sends anything.
// - kTls and a first flight that is not a TLS handshake record: the watch ends when the bytes go
//   out and the session is as it would be without it (no timer, no report). The member may be
//   working on a request: a slow answer is not a hang, and sending it twice would not be safe.
// - kNever: nothing is kept. A member silent past first_byte_timeout is reported (silent), once,
//   and the session keeps waiting as before: the answer may still come, and the idle timeout ends
//   it otherwise. One that closes or resets before its first byte is reported, the client closed.
// - More than kFirstFlightCap before the first answer: the watch ends, the session carries on as
//   it would without it.
// - A member that fails before any client byte went out to it is left for another member in
//   every mode: nothing is repeated, so that is a retry, like after a failed connect.
#include "proxy/session.h"

namespace vigil::proxy {
namespace {

// A TLS record of type handshake (22) with a 3.x version: a ClientHello, on which no server acts
// before the handshake completes. A lone first byte is not enough to tell.
bool tls_handshake(const Buffer& b) {
  return b.end >= 2 && static_cast<uint8_t>(b.data[0]) == 0x16 &&
         static_cast<uint8_t>(b.data[1]) == 0x03;
}

}  // namespace

void Session::watch_first_flight() {
  const PoolSnapshotPtr& pool = host_.pool(listener_.pool_index);
  if (!pool || pool->first_byte_timeout <= Duration::zero()) return;
  awaiting_first_byte_ = true;
  up_.keep = pool->replay != Replay::kNever;
}

// The client's first bytes went out to the member: its clock starts.
void Session::first_flight_sent() {
  const bool tls_only = pool_->replay == Replay::kTls;
  if (pool_->first_byte_timeout <= Duration::zero() ||
      (tls_only && (!up_.keep || up_.buf == nullptr || !tls_handshake(*up_.buf)))) {
    stop_watching_first_flight();
    return;
  }
  const TimePoint now = host_.now();
  phase_deadline_ = now + pool_->first_byte_timeout;
  suspect_reported_ = false;
  // The suspect time comes first; the first-byte deadline follows from next_wake() once it passed.
  host_.schedule(*this, now + suspect_after(pool_->first_byte_timeout));
}

void Session::first_byte_received() { stop_watching_first_flight(); }

// From now on the session is as it would be without the watch; an idle one holds no buffer.
void Session::stop_watching_first_flight() {
  awaiting_first_byte_ = false;
  phase_deadline_ = {};
  pool_.reset();
  up_.keep = false;
  if (up_.buf != nullptr && up_.buf->empty()) host_.buffers().give(std::exchange(up_.buf, nullptr));
}

// Past suspect_after() the member is reported suspect, once: checked at once, left in rotation,
// the session still waiting on it. A slow member that then answers costs one check, and its
// report is throttled per member (BackendStats::take_suspect_report).
void Session::report_if_suspect(TimePoint now) {
  const TimePoint at = suspect_at();
  if (at == TimePoint{} || now < at) return;
  suspect_reported_ = true;
  host_.member_suspect(*pool_, pool_->candidates[connected_attempt().candidate]);
}

TimePoint Session::suspect_at() const {
  if (!awaiting_first_byte_ || phase_deadline_ == TimePoint{} || suspect_reported_) return {};
  return first_flight_sent_at() + suspect_after(pool_->first_byte_timeout);
}

bool Session::first_byte_overdue(TimePoint now) const {
  return awaiting_first_byte_ && phase_deadline_ != TimePoint{} && now >= phase_deadline_;
}

// The member failed before its first byte: reported like a failed connect (the control plane
// takes it out of rotation and checks it at once), then the session moves to another member when
// that is safe. True when the session went on without this member: to another one, or closed.
bool Session::first_flight_failed(const std::string& reason, bool silent) {
  Attempt& failed = connected_attempt();
  const Duration waited =
      phase_deadline_ == TimePoint{} ? Duration::zero() : host_.now() - first_flight_sent_at();
  member_failed(pool_->candidates[failed.candidate], reason, silent, waited,
                pool_->first_byte_timeout);
  return move_first_flight(failed, silent);
}

// Not reported: the control plane decided it (down, silent, maintenance) and knows already.
bool Session::leave_member() {
  if (closed()) return false;
  const std::shared_ptr<BackendStats> member = backend_stats_;  // a move resets backend_stats_
  if (awaiting_first_byte_) {
    Attempt& failed = connected_attempt();
    if (move_first_flight(failed, true) && !closed()) return false;  // on another member
  }
  if (closed()) return true;
  // A client that had the member's answers reconnects; one that had none saw a failure.
  (bytes_down_ > 0 ? member->sessions_closed : member->failed_sessions)
      .fetch_add(1, std::memory_order_relaxed);
  ending(SessionEnd::kMemberDown);
  close();
  return true;
}

// The session goes on without `failed`'s member: the kept flight to another one, or closed.
bool Session::move_first_flight(Attempt& failed, bool silent) {
  const bool sent = phase_deadline_ != TimePoint{};
  const std::shared_ptr<BackendStats> member = backend_stats_;  // failed's; reset below

  if (sent && !up_.keep) {  // kNever
    stop_watching_first_flight();
    if (silent) return false;
    member->failed_sessions.fetch_add(1, std::memory_order_relaxed);
    close();
    return true;
  }
  backend_stats_->active.fetch_sub(1, std::memory_order_relaxed);
  backend_stats_.reset();
  backend_ = nullptr;
  failed.side.fd.reset();  // closing also removes it from epoll
  // Nothing came from the member, so the way back holds nothing but maybe an empty buffer.
  if (down_.buf != nullptr) host_.buffers().give(std::exchange(down_.buf, nullptr));
  if (up_.buf != nullptr) up_.buf->start = 0;  // everything kept goes out again
  state_ = State::kConnecting;
  dead_peer_pending_ = false;
  phase_deadline_ = {};
  move_to_latest_pool(failed);
  // The other slot: events later in this batch for the closed socket name the failed one, which
  // stays inactive.
  if (!start_attempt(other(failed))) {
    give_up(member.get());
    return true;
  }
  if (sent) {
    listener_.stats->replayed.fetch_add(1, std::memory_order_relaxed);
    member->replays.fetch_add(1, std::memory_order_relaxed);
    replayed_ = true;
  } else {
    member->retries.fetch_add(1, std::memory_order_relaxed);
  }
  schedule_hedge();
  return true;
}

// A snapshot published since the connect would reset the tried list (start_attempt), and the
// member that just failed is likely still in it: the control plane has not yet seen the report.
void Session::move_to_latest_pool(const Attempt& failed) {
  const PoolSnapshotPtr& latest = host_.pool(listener_.pool_index);
  if (!latest || latest == pool_) return;
  const std::string member_id = pool_->candidates[failed.candidate].member_id;
  pool_ = latest;
  tried_count_ = 0;
  for (size_t i = 0; i < pool_->candidates.size() && tried_count_ < kMaxTried; ++i) {
    if (pool_->candidates[i].member_id == member_id)
      tried_[tried_count_++] = static_cast<uint32_t>(i);
  }
}

}  // namespace vigil::proxy
