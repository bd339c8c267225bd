#include "proxy/session.h"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "net/socket.h"

namespace vigil::proxy {
namespace {

constexpr uint32_t kEvents = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;

uint32_t clock_ms(TimePoint t) {
  return static_cast<uint32_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count());
}

}  // namespace

Session::Session(SessionHost& host, uint64_t id, net::Fd client,
                 const net::SocketAddress& client_address,
                 std::shared_ptr<const ListenerRuntime> listener)
    : host_(host),
      id_(id),
      listener_ptr_(std::move(listener)),
      listener_(*listener_ptr_),
      client_(Handler::Kind::kClient, this),
      attempts_{Attempt(this), Attempt(this)} {
  const std::string_view ip = client_address.ip_bytes();
  client_ip_size_ = static_cast<uint8_t>(std::min(ip.size(), client_ip_.size()));
  std::copy_n(ip.data(), client_ip_size_, client_ip_.data());
  client_port_ = client_address.port();
  client_.fd = std::move(client);
  last_activity_ = host_.now();
  started_ms_ = clock_ms(last_activity_);
  accepted_at_ = last_activity_;
  listener_.stats->active.fetch_add(1, std::memory_order_relaxed);
  listener_.stats->total.fetch_add(1, std::memory_order_relaxed);
}

Duration Session::age(TimePoint now) const {
  return std::chrono::milliseconds(static_cast<uint32_t>(clock_ms(now) - started_ms_));
}

Session::~Session() {
  if (state_ != State::kClosed) release();
}

bool Session::arm(Side& side) {
  epoll_event ev{};
  ev.events = kEvents;
  ev.data.ptr = static_cast<Handler*>(&side);
  return ::epoll_ctl(host_.epoll_fd(), EPOLL_CTL_ADD, side.fd.get(), &ev) == 0;
}

void Session::on_event(Side& side, uint32_t events) {
  if (state_ == State::kClosed) return;
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) side.readable = true;
  if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) side.hup = true;
  if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR)) side.writable = true;

  if (state_ == State::kReadingHeader) {
    if (&side == &client_) read_proxy_header();
    return;
  }
  if (state_ == State::kConnecting) {
    for (Attempt& a : attempts_) {
      if (&side == &a.side && a.active() && side.writable) on_connect_event(a, events);
    }
    if (&side == &client_ && (events & EPOLLERR)) close();  // the client gave up meanwhile
    return;
  }
  if (&side != &client_ && &side != backend_) return;  // a hedge that lost
  // Pump only the direction this event concerns.
  const bool in = events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR);
  const bool out = events & (EPOLLOUT | EPOLLHUP | EPOLLERR);
  bool ok = true;
  if (&side == &client_) {
    if (in) ok = pump(client_, *backend_, up_, &backend_stats_->bytes_out);
    if (ok && out) ok = pump(*backend_, client_, down_, &backend_stats_->bytes_in);
  } else {
    if (in) ok = pump(*backend_, client_, down_, &backend_stats_->bytes_in);
    if (ok && out) ok = pump(client_, *backend_, up_, &backend_stats_->bytes_out);
  }
  after_pump(ok);
}

void Session::after_pump(bool ok) {
  if (state_ != State::kPumping) return;
  // A client that left without sending a byte (a port probe that connects and closes) is
  // answered by the member's close: that is no fault of the member's, and nothing is to replay.
  const bool probe_ended = client_.read_eof && phase_deadline_ == TimePoint{};
  if (!ok && awaiting_first_byte_ && !client_.failed && !probe_ended &&
      (backend_->failed || backend_->read_eof)) {
    const bool closed = backend_->read_eof;
    if (first_flight_failed(closed ? "closed before its first byte" : "reset before its first byte",
                            false)) {
      return;
    }
  }
  if (!ok ||
      (client_.read_eof && backend_->write_shut && backend_->read_eof && client_.write_shut)) {
    close();
  }
}

// Moves bytes from src to dst until one of them would block. Returns false on a socket error,
// which ends the session. When src has ended and everything was sent, dst's write side is shut,
// so a client that half-closes still receives the whole answer. A direction that streams (a
// read filled the whole buffer) moves on to splice() once its buffer has drained.
bool Session::pump(Side& src, Side& dst, Flow& flow, std::atomic<uint64_t>* bytes) {
  uint64_t moved = 0;
  if (flow.pipe == nullptr && flow.buf == nullptr && flow.filled && !src.read_eof) {
    flow.pipe = host_.pipes().take();  // null: keep copying
    flow.filled = false;
  }
  if (flow.pipe != nullptr) {
    const bool ok = splice_pump(src, dst, flow, moved);
    finish_pump(src, dst, flow, moved, bytes);
    return ok;
  }
  for (;;) {
    bool progressed = false;
    if (!src.read_eof && src.readable && (flow.buf == nullptr || !flow.buf->full())) {
      if (flow.buf == nullptr) flow.buf = host_.buffers().take();
      Buffer* buf = flow.buf;
      const size_t want = Buffer::kSize - buf->end;
      const ssize_t n = ::recv(src.fd.get(), buf->data + buf->end, want, 0);
      if (n > 0) {
        buf->end += static_cast<uint32_t>(n);
        progressed = true;
        flow.filled = static_cast<size_t>(n) == Buffer::kSize;
        // A short read drained the socket; the next edge tells us of more. After HUP keep
        // reading so that the end of stream is seen.
        if (static_cast<size_t>(n) < want && !src.hup) src.readable = false;
        if (awaiting_first_byte_) [[unlikely]] {
          if (&flow == &down_) {
            first_byte_received();
          } else if (flow.keep && buf->end > kFirstFlightCap) {
            stop_watching_first_flight();  // too much to keep: on as if never watched
          }
        }
      } else if (n == 0) {
        note_eof(src);
        src.read_eof = true;
        progressed = true;
        // Not passed on to the client: after_pump() moves the session to another member.
        if (awaiting_first_byte_ && &flow == &down_) return false;
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        src.readable = false;
      } else if (errno != EINTR) {
        src.failed = true;
        return false;
      }
    }
    Buffer* buf = flow.buf;
    if (buf != nullptr && !buf->empty() && dst.writable) {
      const ssize_t n = ::send(dst.fd.get(), buf->data + buf->start, buf->pending(), MSG_NOSIGNAL);
      if (n > 0) {
        buf->start += static_cast<uint32_t>(n);
        moved += static_cast<uint64_t>(n);
        if (buf->empty() && !flow.keep) buf->start = buf->end = 0;
        progressed = true;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        dst.writable = false;
      } else if (n < 0 && errno != EINTR) {
        dst.failed = true;
        return false;
      }
    }
    if (!progressed) break;
    // Streaming and drained: the rest of this burst goes through a pipe.
    if (flow.filled && (flow.buf == nullptr || flow.buf->empty())) break;
  }
  finish_pump(src, dst, flow, moved, bytes);
  if (flow.filled && flow.buf == nullptr && src.readable && !src.read_eof) {
    return pump(src, dst, flow, bytes);  // once: pump() starts with a pipe now, or without one
  }
  return true;
}

void Session::on_timer(TimePoint now) {
  if (state_ == State::kReadingHeader) {
    if (now >= phase_deadline_) {
      listener_.stats->proxy_timeout.fetch_add(1, std::memory_order_relaxed);
      refuse_proxy_header("no complete PROXY header in time");
    }
    return;
  }
  if (state_ == State::kConnecting) {
    on_connect_timer(now);
    return;
  }
  if (state_ != State::kPumping) return;
  report_if_suspect(now);
  if (first_byte_overdue(now) &&
      first_flight_failed("no first byte within first_byte_timeout", true)) {
    return;  // another member now, or closed
  }
  if (dead_peer_pending_ && now >= dead_peer_at()) {
    dead_peer_pending_ = false;  // also when a reload removed the pool: nothing to apply then
    const PoolSnapshotPtr& pool = host_.pool(listener_.pool_index);
    if (pool) set_backend_dead_peer(pool->backend_dead_peer);
  }
  if (now >= last_activity_ + listener_.idle_timeout) {
    ending(SessionEnd::kIdleTimeout);
    close();
  }
}

// Every deadline on_timer() acts on, in the state that it acts on it in.
TimePoint Session::next_wake() const {
  const auto earliest = [](TimePoint a, TimePoint b) {
    return a == TimePoint{} || (b != TimePoint{} && b < a) ? b : a;
  };
  switch (state_) {
    case State::kReadingHeader:
      return phase_deadline_;
    case State::kConnecting: {
      TimePoint next = phase_deadline_;  // the hedge's
      for (const Attempt& a : attempts_) {
        if (a.active()) next = earliest(next, a.deadline);
      }
      return next;
    }
    case State::kPumping: {
      TimePoint next = last_activity_ + listener_.idle_timeout;
      if (awaiting_first_byte_) next = earliest(next, earliest(suspect_at(), phase_deadline_));
      if (dead_peer_pending_) next = earliest(next, dead_peer_at());
      return next;
    }
    case State::kClosed:
      break;
  }
  return {};
}

TimePoint Session::dead_peer_at() const {
  constexpr Duration kDeadPeerAfter = std::chrono::seconds(1);
  const TimePoint connected = accepted_at_ + std::chrono::microseconds(connected_us_ - 1);
  return connected + std::min(kDeadPeerAfter, listener_.idle_timeout);
}

void Session::set_backend_dead_peer(const net::DeadPeerOptions& options) {
  if (state_ != State::kPumping) return;
  dead_peer_pending_ = false;
  net::set_dead_peer_detection(backend_->fd.get(), options);
}

void Session::close() {
  if (state_ == State::kClosed) return;
  if (!end_set_) {
    // Nobody named a cause: the legs tell it. A reset beats an orderly close.
    if (client_.failed) {
      ending(SessionEnd::kClientReset);
    } else if (backend_ != nullptr && backend_->failed) {
      ending(SessionEnd::kMemberReset);
    } else if (backend_ != nullptr && backend_->read_eof && !client_.read_eof) {
      ending(SessionEnd::kMemberClose);
    } else {
      ending(first_eof_member_ ? SessionEnd::kMemberClose : SessionEnd::kClientClose);
    }
  }
  release();
  host_.session_closed(*this);
}

void Session::reset_client_for(SessionEnd why) {
  if (closed()) return;
  // SO_LINGER with a zero timeout: close() sends an RST and drops what was queued.
  const linger now{.l_onoff = 1, .l_linger = 0};
  ::setsockopt(client_.fd.get(), SOL_SOCKET, SO_LINGER, &now, sizeof now);
  close_for(why);
}

void Session::release() {
  const bool was_pumping = state_ == State::kPumping;
  state_ = State::kClosed;
  client_.fd.reset();
  for (Attempt& a : attempts_) a.side.fd.reset();
  for (Flow* f : {&up_, &down_}) {
    if (f->buf != nullptr) host_.buffers().give(std::exchange(f->buf, nullptr));
    if (f->pipe != nullptr) host_.pipes().give(std::exchange(f->pipe, nullptr));
  }
  if (was_pumping && backend_stats_) backend_stats_->active.fetch_sub(1, std::memory_order_relaxed);
  listener_.stats->active.fetch_sub(1, std::memory_order_relaxed);
  pool_.reset();
}

}  // namespace vigil::proxy
