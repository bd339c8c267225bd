// The streaming half of the pump: socket -> pipe -> socket with splice(), so bulk bytes never
// cross into user space, and the common tail of both pumps (counters, buffers and pipes given
// back once empty, half-close).
#include <fcntl.h>
#include <sys/socket.h>

#include <cerrno>

#include "proxy/session.h"

namespace vigil::proxy {

bool Session::splice_pump(Side& src, Side& dst, Flow& flow, uint64_t& moved) {
  Pipe& pipe = *flow.pipe;
  constexpr unsigned kFlags = SPLICE_F_MOVE | SPLICE_F_NONBLOCK;
  for (;;) {
    bool progressed = false;
    if (!src.read_eof && src.readable && pipe.pending < pipe.capacity) {
      const ssize_t n = ::splice(src.fd.get(), nullptr, pipe.write_fd, nullptr,
                                 pipe.capacity - pipe.pending, kFlags);
      if (n > 0) {
        pipe.pending += static_cast<uint32_t>(n);
        progressed = true;
      } else if (n == 0) {
        note_eof(src);
        src.read_eof = true;
        progressed = true;
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        // The pipe had room, so the socket is empty; the next edge tells us of more.
        src.readable = false;
      } else if (errno != EINTR) {
        src.failed = true;
        return false;
      }
    }
    if (pipe.pending > 0 && dst.writable) {
      const ssize_t n =
          ::splice(pipe.read_fd, nullptr, dst.fd.get(), nullptr, pipe.pending, kFlags);
      if (n > 0) {
        pipe.pending -= static_cast<uint32_t>(n);
        moved += static_cast<uint64_t>(n);
        progressed = true;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        dst.writable = false;  // the pipe holds bytes, so the socket is full
      } else if (n < 0 && errno != EINTR) {
        dst.failed = true;
        return false;
      }
    }
    if (!progressed) return true;
  }
}

void Session::finish_pump(Side& src, Side& dst, Flow& flow, uint64_t moved,
                          std::atomic<uint64_t>* bytes) {
  if (moved > 0) {
    (&flow == &up_ ? bytes_up_ : bytes_down_) += moved;
    bytes->fetch_add(moved, std::memory_order_relaxed);
    (&flow == &up_ ? listener_.stats->bytes_in : listener_.stats->bytes_out)
        .fetch_add(moved, std::memory_order_relaxed);
    last_activity_ = host_.now();
    if (awaiting_first_byte_ && &flow == &up_ && phase_deadline_ == TimePoint{}) {
      first_flight_sent();
    }
  }
  if (flow.buf != nullptr && flow.buf->empty() && !flow.keep) {
    host_.buffers().give(std::exchange(flow.buf, nullptr));
  }
  // An empty pipe goes back while the source is quiet, so an idle session holds none; a
  // direction that streams again takes one again.
  if (flow.pipe != nullptr && flow.pipe->pending == 0 && (!src.readable || src.read_eof)) {
    host_.pipes().give(std::exchange(flow.pipe, nullptr));
  }
  // A kept buffer counts as drained once all of it went out: a half-closing client's FIN must
  // reach a member that answers only at the end of the request.
  const bool drained = (flow.buf == nullptr || flow.buf->empty()) && flow.pipe == nullptr;
  if (src.read_eof && drained && !dst.write_shut) {
    // When the other way is over too, the session closes next, and close() sends this FIN.
    if (!dst.read_eof || !src.write_shut) ::shutdown(dst.fd.get(), SHUT_WR);
    dst.write_shut = true;
  }
}

}  // namespace vigil::proxy
