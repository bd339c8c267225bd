#include "health/tls_socket.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <sys/socket.h>

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <cerrno>
#include <new>
#include <string>

namespace vigil::health {
namespace {

namespace asio = boost::asio;

// A socket BIO that sends with MSG_NOSIGNAL. OpenSSL's own (BIO_s_socket) writes with write(2),
// which raises SIGPIPE when the member has gone; a process that has not ignored it would die of
// a member closing a kept connection. The descriptor is the BIO's number; it never closes it
// (the Asio socket owns it).
int bio_write(BIO* bio, const char* data, int size) {
  BIO_clear_retry_flags(bio);
  const ssize_t n = ::send(BIO_get_fd(bio, nullptr), data, static_cast<size_t>(size),
                           MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    BIO_set_retry_write(bio);
  }
  return static_cast<int>(n);
}

int bio_read(BIO* bio, char* data, int size) {
  BIO_clear_retry_flags(bio);
  const ssize_t n = ::recv(BIO_get_fd(bio, nullptr), data, static_cast<size_t>(size), MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    BIO_set_retry_read(bio);
  }
  return static_cast<int>(n);
}

int bio_puts(BIO* bio, const char* text) {
  return bio_write(bio, text, static_cast<int>(std::char_traits<char>::length(text)));
}

// Before each OpenSSL call: its errors are read from the thread's queue and errno afterwards.
void clear_errors() {
  ERR_clear_error();
  errno = 0;
}

// The socket BIO's own control (descriptor, flush, EOF) with our reads and writes.
const BIO_METHOD* socket_method() {
  static BIO_METHOD* const method = [] {
    const BIO_METHOD* base = BIO_s_socket();
    BIO_METHOD* m = BIO_meth_new(BIO_TYPE_SOCKET, "vigil check socket");
    if (m == nullptr) return m;
    BIO_meth_set_write(m, bio_write);
    BIO_meth_set_read(m, bio_read);
    BIO_meth_set_puts(m, bio_puts);
    BIO_meth_set_ctrl(m, BIO_meth_get_ctrl(base));
    BIO_meth_set_create(m, BIO_meth_get_create(base));
    BIO_meth_set_destroy(m, BIO_meth_get_destroy(base));
    return m;
  }();
  return method;
}

}  // namespace

TlsSocket::TlsSocket(asio::io_context& io, asio::ssl::context& context)
    : socket_(io), ssl_(SSL_new(context.native_handle())) {
  if (ssl_ == nullptr) throw std::bad_alloc();
  // Partial writes and a moving write buffer as Asio's stream sets them; RELEASE_BUFFERS is the
  // point of this class: no record buffer is held while nothing is in flight.
  SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                         SSL_MODE_RELEASE_BUFFERS);
}

TlsSocket::~TlsSocket() {
  if (ssl_ != nullptr) SSL_free(ssl_);
}

TlsSocket::TlsSocket(TlsSocket&& other) noexcept
    : socket_(std::move(other.socket_)), ssl_(std::exchange(other.ssl_, nullptr)) {}

TlsSocket& TlsSocket::operator=(TlsSocket&& other) noexcept {
  if (this != &other) {
    if (ssl_ != nullptr) SSL_free(ssl_);
    socket_ = std::move(other.socket_);
    ssl_ = std::exchange(other.ssl_, nullptr);
  }
  return *this;
}

void TlsSocket::attach() {
  if (SSL_get_rbio(ssl_) != nullptr) return;
  BIO* bio = BIO_new(socket_method());
  if (bio == nullptr) return;  // the handshake then fails with OpenSSL's error
  BIO_set_fd(bio, socket_.native_handle(), BIO_NOCLOSE);
  SSL_set_bio(ssl_, bio, bio);
  SSL_set_connect_state(ssl_);
}

TlsSocket::Want TlsSocket::try_handshake(size_t& n, error_code& ec) {
  n = 0;
  clear_errors();
  return judge(SSL_do_handshake(ssl_), ec);
}

TlsSocket::Want TlsSocket::try_read(asio::mutable_buffer b, size_t& n, error_code& ec) {
  n = 0;
  if (b.size() == 0) return Want::kNothing;
  clear_errors();
  const int result = SSL_read_ex(ssl_, b.data(), b.size(), &n);
  return result == 1 ? Want::kNothing : judge(result, ec);
}

TlsSocket::Want TlsSocket::try_write(asio::const_buffer b, size_t& n, error_code& ec) {
  n = 0;
  if (b.size() == 0) return Want::kNothing;
  clear_errors();
  const int result = SSL_write_ex(ssl_, b.data(), b.size(), &n);
  return result == 1 ? Want::kNothing : judge(result, ec);
}

TlsSocket::Want TlsSocket::judge(int result, error_code& ec) {
  const int saved_errno = errno;
  switch (SSL_get_error(ssl_, result)) {
    case SSL_ERROR_NONE:
      return Want::kNothing;
    case SSL_ERROR_WANT_READ:
      return Want::kRead;
    case SSL_ERROR_WANT_WRITE:
      return Want::kWrite;
    case SSL_ERROR_ZERO_RETURN:  // the peer's close_notify
      ec = asio::error::eof;
      return Want::kNothing;
    case SSL_ERROR_SYSCALL: {
      // The same codes as Asio's stream gives, so that the checks' error texts do not change:
      // an OpenSSL error first, then the system's (a reset), else a close without close_notify.
      const unsigned long error = ERR_get_error();
      if (error != 0) {
        ec = error_code(static_cast<int>(error), asio::error::get_ssl_category());
      } else if (saved_errno != 0) {
        ec = error_code(saved_errno, asio::error::get_system_category());
      } else {
        ec = asio::ssl::error::stream_truncated;
      }
      return Want::kNothing;
    }
    default: {
      const unsigned long error = ERR_get_error();
      if (ERR_GET_REASON(error) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
        ec = asio::ssl::error::stream_truncated;
      } else {
        ec = error_code(static_cast<int>(error), asio::error::get_ssl_category());
      }
      return Want::kNothing;
    }
  }
}

}  // namespace vigil::health
