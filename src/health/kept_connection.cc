#include "health/kept_connection.h"

#include <sys/socket.h>

#include <cerrno>

namespace vigil::health {
namespace {

// True when nothing arrived on the idle connection: no data, no end of stream, no error. A
// server that closes an idle keep-alive connection may first send an answer nobody asked for
// (408 Request Timeout); read after the next request it would pass for that request's answer.
bool quiet(int fd) {
  char byte = 0;
  const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

}  // namespace

Duration draw_max_age(std::mt19937_64& rng, Duration period) {
  const auto full = std::chrono::duration_cast<std::chrono::milliseconds>(period);
  std::uniform_int_distribution<int64_t> fifth(0, full.count() / 5);
  return full - std::chrono::milliseconds(fifth(rng));
}

std::optional<KeptConnection::Connection> KeptConnection::take(
    TimePoint now, const boost::asio::ssl::context* context) {
  if (!kept_) return std::nullopt;
  Connection c = std::move(*kept_);
  kept_.reset();
  Socket& socket = c.tls ? c.tls->next_layer() : *c.plain;
  const bool same_context = c.tls ? c.context.get() == context : context == nullptr;
  if (same_context && now - c.opened < max_age_ && socket.is_open() &&
      quiet(socket.native_handle())) {
    return c;
  }
  close(c);
  return std::nullopt;
}

void KeptConnection::keep(Connection c, uint64_t epoch) {
  if (epoch != epoch_) {
    close(c);
    return;
  }
  drop_connection();
  kept_ = std::move(c);
}

void KeptConnection::drop() {
  drop_connection();
  ++epoch_;
}

void KeptConnection::drop_connection() {
  if (kept_) close(*kept_);
  kept_.reset();
}

void KeptConnection::close(Connection& c) {
  boost::system::error_code ignored;
  if (c.tls) {
    keep_session_resumable(*c.tls);
    c.tls->next_layer().close(ignored);
  }
  if (c.plain) c.plain->close(ignored);
}

void KeptConnection::keep_session_resumable(TlsStream& tls) {
  SSL_set_shutdown(tls.native_handle(), SSL_SENT_SHUTDOWN);
}

}  // namespace vigil::health
