// TlsSocket: a check's TLS client connection, OpenSSL reading and writing the socket itself.
// Asio's ssl::stream runs OpenSSL over a BIO pair and keeps four 17 KB buffers per connection for
// its whole life, bytes in flight or not. A member's kept HTTPS connection is idle between its
// checks, so at 10,000 members that was about 700 MB holding nothing. Here OpenSSL talks to the
// descriptor through a small BIO, and SSL_MODE_RELEASE_BUFFERS frees its record buffers whenever
// they are empty: an idle connection keeps only its TLS state.
// An AsyncReadStream and AsyncWriteStream as Asio defines them (Beast's http::async_read and
// asio::async_write run on it): each operation tries its OpenSSL call, waits for the descriptor
// when OpenSSL wants to read or write, and tries again. A result known at once is posted, never
// delivered inside the initiating call.
// Private to health/. Control thread only; at most one operation of each direction at a time, and
// moved only at rest (no operation pending), like Asio's streams.
#pragma once

#include <openssl/ssl.h>

#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <cstddef>
#include <utility>

namespace vigil::health {

class TlsSocket {
 public:
  using Socket = boost::asio::ip::tcp::socket;
  using executor_type = Socket::executor_type;
  using error_code = boost::system::error_code;

  // Throws std::bad_alloc when OpenSSL cannot make the connection's state.
  TlsSocket(boost::asio::io_context& io, boost::asio::ssl::context& context);
  ~TlsSocket();
  TlsSocket(TlsSocket&& other) noexcept;
  TlsSocket& operator=(TlsSocket&& other) noexcept;

  Socket& next_layer() { return socket_; }
  const Socket& next_layer() const { return socket_; }
  SSL* native_handle() { return ssl_; }
  executor_type get_executor() { return socket_.get_executor(); }

  // The client handshake, on the socket once it is connected. Handler: void(error_code).
  template <typename Token>
  auto async_handshake(Token&& token) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [this](auto handler) {
          attach();
          start([this](size_t& n, error_code& ec) { return try_handshake(n, ec); },
                [h = std::move(handler)](const error_code& ec, size_t) mutable { h(ec); });
        },
        token);
  }

  // Reads into the first non-empty buffer. Handler: void(error_code, size_t). The end of the
  // stream is asio::error::eof after a close_notify, and ssl::error::stream_truncated without.
  template <typename Buffers, typename Token>
  auto async_read_some(const Buffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(error_code, size_t)>(
        [this](auto handler, boost::asio::mutable_buffer b) {
          start([this, b](size_t& n, error_code& ec) { return try_read(b, n, ec); },
                std::move(handler));
        },
        token, first_buffer<boost::asio::mutable_buffer>(buffers));
  }

  // Writes from the first non-empty buffer. Handler: void(error_code, size_t).
  template <typename Buffers, typename Token>
  auto async_write_some(const Buffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(error_code, size_t)>(
        [this](auto handler, boost::asio::const_buffer b) {
          start([this, b](size_t& n, error_code& ec) { return try_write(b, n, ec); },
                std::move(handler));
        },
        token, first_buffer<boost::asio::const_buffer>(buffers));
  }

 private:
  // What one OpenSSL call left to do.
  enum class Want { kNothing, kRead, kWrite };

  // One operation: an OpenSSL call retried on readiness until it completes or fails.
  template <typename Attempt, typename Handler>
  struct Op {
    TlsSocket* self;
    Attempt attempt;
    Handler handler;

    void operator()(const error_code& wait_error) {
      if (wait_error) return handler(wait_error, 0);  // closed under us (a cancel): no SSL call
      size_t n = 0;
      error_code ec;
      const Want want = attempt(n, ec);
      if (want == Want::kNothing) return handler(ec, n);
      self->wait(want, std::move(*this));
    }
  };

  template <typename Attempt, typename Handler>
  void start(Attempt attempt, Handler handler) {
    size_t n = 0;
    error_code ec;
    const Want want = attempt(n, ec);
    if (want == Want::kNothing) {
      boost::asio::post(get_executor(), [h = std::move(handler), ec, n]() mutable { h(ec, n); });
      return;
    }
    wait(want, Op<Attempt, Handler>{this, std::move(attempt), std::move(handler)});
  }

  template <typename Handler>
  void wait(Want want, Handler&& handler) {
    socket_.async_wait(want == Want::kRead ? Socket::wait_read : Socket::wait_write,
                       std::forward<Handler>(handler));
  }

  template <typename Buffer, typename Buffers>
  static Buffer first_buffer(const Buffers& buffers) {
    for (auto it = boost::asio::buffer_sequence_begin(buffers);
         it != boost::asio::buffer_sequence_end(buffers); ++it) {
      Buffer b(*it);
      if (b.size() > 0) return b;
    }
    return Buffer();
  }

  // Gives OpenSSL the socket's descriptor (once connected, before the handshake).
  void attach();
  Want try_handshake(size_t& n, error_code& ec);
  Want try_read(boost::asio::mutable_buffer b, size_t& n, error_code& ec);
  Want try_write(boost::asio::const_buffer b, size_t& n, error_code& ec);
  // What OpenSSL's answer `result` to the call just made means; `ec` set when it failed.
  Want judge(int result, error_code& ec);

  Socket socket_;
  SSL* ssl_ = nullptr;
};

}  // namespace vigil::health
