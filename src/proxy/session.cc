#include "proxy/session.h"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>

#include "net/socket.h"

namespace vigil::proxy {
namespace {

constexpr uint32_t kEvents = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;

}  // namespace

Session::Session(SessionHost& host, uint64_t id, net::Fd client,
                 const net::SocketAddress& client_address, const ListenerRuntime& listener)
    : host_(host),
      id_(id),
      listener_(listener),
      client_(Handler::Kind::kClient, this),
      backend_(Handler::Kind::kBackend, this),
      client_address_(client_address) {
  client_.fd = std::move(client);
  last_activity_ = host_.now();
  listener_.stats->active.fetch_add(1, std::memory_order_relaxed);
  listener_.stats->total.fetch_add(1, std::memory_order_relaxed);
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

void Session::start() {
  if (!arm(client_)) {
    close();
    return;
  }
  connect_next();
}

// Picks the next member not yet tried and starts a non-blocking connect to it. Nothing has been
// sent to any member yet, so moving to another one loses no client byte.
void Session::connect_next() {
  const PoolSnapshotPtr& latest = host_.pool(listener_.pool_index);
  if (pool_ != latest) {
    // Health changed since the last attempt: indices refer to a new candidate list.
    pool_ = latest;
    tried_count_ = 0;
  }
  const int max_attempts = 1 + pool_->retries;
  while (attempts_ < max_attempts && tried_count_ < kMaxTried) {
    const int index = host_.balancer(listener_.pool_index)
                          .pick(*pool_, {.client_ip = client_address_.ip_bytes(),
                                         .tried = {tried_, static_cast<size_t>(tried_count_)}});
    if (index < 0) break;
    tried_[tried_count_++] = static_cast<uint32_t>(index);
    ++attempts_;
    current_ = index;
    const Backend& b = pool_->candidates[index];
    auto connecting = net::connect_nonblocking(b.address);
    if (!connecting) {
      host_.connect_failed(*pool_, b, connecting.error().message);
      continue;
    }
    backend_ = Side(Handler::Kind::kBackend, this);
    backend_.fd = std::move(connecting->fd);
    if (!arm(backend_)) {
      backend_.fd.reset();
      continue;
    }
    if (!connecting->in_progress) {
      on_connected();
      return;
    }
    connect_deadline_ = host_.now() + pool_->connect_timeout;
    host_.schedule(id_, connect_deadline_);
    return;
  }
  // No member could be reached: the client sees its connection closed, never a hang.
  listener_.stats->no_backend.fetch_add(1, std::memory_order_relaxed);
  close();
}

void Session::connect_failed(const std::string& reason) {
  backend_.fd.reset();  // closing also removes it from epoll
  if (pool_ && current_ >= 0) host_.connect_failed(*pool_, pool_->candidates[current_], reason);
  connect_next();
}

void Session::on_connected() {
  state_ = State::kPumping;
  const Backend& b = pool_->candidates[current_];
  backend_stats_ = b.stats;
  member_id_ = b.member_id;
  backend_stats_->active.fetch_add(1, std::memory_order_relaxed);
  backend_stats_->total.fetch_add(1, std::memory_order_relaxed);
  pool_.reset();
  net::set_dead_peer_detection(client_.fd.get(), {});
  net::set_dead_peer_detection(backend_.fd.get(), {});
  backend_.writable = true;
  last_activity_ = host_.now();
  host_.schedule(id_, last_activity_ + listener_.idle_timeout);
  pump_all();
}

void Session::on_event(Side& side, uint32_t events) {
  if (state_ == State::kClosed) return;
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) side.readable = true;
  if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) side.hup = true;
  if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR)) side.writable = true;

  if (state_ == State::kConnecting) {
    if (&side == &backend_ && side.writable) {
      const int err = net::socket_error(backend_.fd.get());
      if (err == 0) {
        on_connected();
      } else {
        connect_failed(net::errno_string(err));
      }
    } else if (&side == &client_ && (events & EPOLLERR)) {
      close();  // the client gave up while we were connecting
    }
    return;
  }
  // Pump only the direction this event concerns.
  bool ok = true;
  if (&side == &client_) {
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
      ok = pump(client_, backend_, up_, &backend_stats_->bytes_out);
    }
    if (ok && (events & (EPOLLOUT | EPOLLHUP | EPOLLERR))) {
      ok = pump(backend_, client_, down_, &backend_stats_->bytes_in);
    }
  } else {
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
      ok = pump(backend_, client_, down_, &backend_stats_->bytes_in);
    }
    if (ok && (events & (EPOLLOUT | EPOLLHUP | EPOLLERR))) {
      ok = pump(client_, backend_, up_, &backend_stats_->bytes_out);
    }
  }
  if (!ok || (client_.read_eof && backend_.write_shut && backend_.read_eof && client_.write_shut)) {
    close();
  }
}

void Session::pump_all() {
  const bool ok = pump(client_, backend_, up_, &backend_stats_->bytes_out) &&
                  pump(backend_, client_, down_, &backend_stats_->bytes_in);
  if (!ok || (client_.read_eof && backend_.write_shut && backend_.read_eof && client_.write_shut)) {
    close();
  }
}

// Moves bytes from src to dst until one of them would block. Returns false on a socket error,
// which ends the session. When src has ended and everything was sent, dst's write side is shut,
// so a client that half-closes still receives the whole answer.
bool Session::pump(Side& src, Side& dst, Buffer*& buf, std::atomic<uint64_t>* bytes) {
  uint64_t moved = 0;
  for (;;) {
    bool progressed = false;
    if (!src.read_eof && src.readable && (buf == nullptr || !buf->full())) {
      if (buf == nullptr) buf = host_.buffers().take();
      const size_t want = Buffer::kSize - buf->end;
      const ssize_t n = ::recv(src.fd.get(), buf->data + buf->end, want, 0);
      if (n > 0) {
        buf->end += static_cast<uint32_t>(n);
        progressed = true;
        // A short read drained the socket; the next edge tells us of more. After HUP keep
        // reading so that the end of stream is seen.
        if (static_cast<size_t>(n) < want && !src.hup) src.readable = false;
      } else if (n == 0) {
        src.read_eof = true;
        progressed = true;
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        src.readable = false;
      } else if (errno != EINTR) {
        return false;
      }
    }
    if (buf != nullptr && !buf->empty() && dst.writable) {
      const ssize_t n = ::send(dst.fd.get(), buf->data + buf->start, buf->pending(), MSG_NOSIGNAL);
      if (n > 0) {
        buf->start += static_cast<uint32_t>(n);
        moved += static_cast<uint64_t>(n);
        if (buf->empty()) buf->start = buf->end = 0;
        progressed = true;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        dst.writable = false;
      } else if (n < 0 && errno != EINTR) {
        return false;
      }
    }
    if (!progressed) break;
  }
  if (moved > 0) {
    bytes->fetch_add(moved, std::memory_order_relaxed);
    last_activity_ = host_.now();
  }
  if (buf != nullptr && buf->empty()) {
    host_.buffers().give(buf);
    buf = nullptr;
  }
  if (src.read_eof && buf == nullptr && !dst.write_shut) {
    ::shutdown(dst.fd.get(), SHUT_WR);
    dst.write_shut = true;
  }
  return true;
}

void Session::on_timer(TimePoint now) {
  if (state_ == State::kConnecting) {
    if (backend_.fd.valid() && now >= connect_deadline_) {
      connect_failed("connect timeout");
    } else if (backend_.fd.valid()) {
      host_.schedule(id_, connect_deadline_);
    }
    return;
  }
  if (state_ != State::kPumping) return;
  const TimePoint idle_deadline = last_activity_ + listener_.idle_timeout;
  if (now >= idle_deadline) {
    close();
  } else {
    host_.schedule(id_, idle_deadline);
  }
}

void Session::close() {
  if (state_ == State::kClosed) return;
  release();
  host_.session_closed(*this);
}

void Session::release() {
  const bool was_pumping = state_ == State::kPumping;
  state_ = State::kClosed;
  client_.fd.reset();
  backend_.fd.reset();
  if (up_ != nullptr) host_.buffers().give(std::exchange(up_, nullptr));
  if (down_ != nullptr) host_.buffers().give(std::exchange(down_, nullptr));
  if (was_pumping && backend_stats_) backend_stats_->active.fetch_sub(1, std::memory_order_relaxed);
  listener_.stats->active.fetch_sub(1, std::memory_order_relaxed);
  pool_.reset();
}

}  // namespace vigil::proxy
