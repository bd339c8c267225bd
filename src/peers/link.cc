#include "peers/link.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>

#include "peers/tls.h"

namespace vigil::peers {

namespace ssl = boost::asio::ssl;
using boost::asio::ip::tcp;

namespace {

std::variant<tcp::socket, ssl::stream<tcp::socket>> make_stream(tcp::socket socket,
                                                                const Link::Tls& tls) {
  if (!tls.context) return socket;
  return ssl::stream<tcp::socket>(std::move(socket), *tls.context);
}

}  // namespace

Link::Link(tcp::socket socket, Handlers handlers, Tls tls)
    : stream_(make_stream(std::move(socket), tls)),
      handlers_(std::move(handlers)),
      connected_(tls.connected) {
  boost::system::error_code ec;
  const auto endpoint = this->socket().remote_endpoint(ec);
  remote_ = ec ? "?" : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  if (!ec) remote_address_ = endpoint.address();
  this->socket().set_option(tcp::no_delay(true), ec);
  if (auto* s = std::get_if<TlsStream>(&stream_); s != nullptr && tls.connected) {
    // The other's certificate must name the peer this node meant to reach (X509_check_host).
    SSL* native = s->native_handle();
    SSL_set_hostflags(native, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    SSL_set1_host(native, tls.peer.c_str());
  }
  ready_ = !this->tls();
}

tcp::socket& Link::socket() {
  if (auto* s = std::get_if<TlsStream>(&stream_)) return s->next_layer();
  return std::get<tcp::socket>(stream_);
}

void Link::start() {
  if (tls()) return handshake();
  read();
}

void Link::handshake() {
  TlsStream& s = std::get<TlsStream>(stream_);
  s.async_handshake(connected_ ? ssl::stream_base::client : ssl::stream_base::server,
                    [self = shared_from_this()](boost::system::error_code ec) {
                      if (!self->open_) return;
                      if (ec) {
                        SSL* native = std::get<TlsStream>(self->stream_).native_handle();
                        const long verified = SSL_get_verify_result(native);
                        const bool none = SSL_get0_peer_certificate(native) == nullptr;
                        std::string why = "TLS handshake: " + ec.message();
                        if (verified != X509_V_OK) {
                          self->certificate_refused_ = true;
                          why += std::string(": its certificate: ") +
                                 X509_verify_cert_error_string(verified);
                        } else if (none && ERR_GET_REASON(static_cast<unsigned long>(ec.value())) ==
                                               SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE) {
                          self->certificate_refused_ = true;
                        }
                        return self->fail(why);
                      }
                      self->ready_ = true;
                      if (!self->queued_.empty()) self->write();
                      self->read();
                    });
}

void Link::read() {
  auto done = [self = shared_from_this()](boost::system::error_code ec, size_t n) {
    if (!self->open_) return;
    if (ec) {
      return self->fail(ec == boost::asio::error::eof || ec == ssl::error::stream_truncated
                            ? "closed by the peer"
                            : ec.message());
    }
    self->reader_.feed(std::span(self->in_.data(), n));
    for (;;) {
      auto frame = self->reader_.next();
      if (!frame) return self->fail("sent garbage: " + frame.error().message);
      if (!*frame) break;
      std::string why;
      if (!self->handlers_.on_frame(**frame, why)) return self->fail(why);
      if (!self->open_) return;  // the handler closed it
    }
    self->read();
  };
  std::visit([&](auto& s) { s.async_read_some(boost::asio::buffer(in_), std::move(done)); },
             stream_);
}

void Link::send(const std::vector<uint8_t>& bytes) {
  if (!open_ || bytes.empty()) return;
  if (queued_.size() + bytes.size() > kMaxQueued) {
    return fail("does not read what it is sent (over 16 MiB waiting)");
  }
  queued_.insert(queued_.end(), bytes.begin(), bytes.end());
  if (ready_ && writing_.empty()) write();
}

void Link::write() {
  writing_.swap(queued_);
  queued_.clear();
  auto done = [self = shared_from_this()](boost::system::error_code ec, size_t) {
    if (!self->open_) return;
    if (ec) return self->fail(ec.message());
    self->writing_.clear();
    if (!self->queued_.empty()) self->write();
  };
  std::visit(
      [&](auto& s) { boost::asio::async_write(s, boost::asio::buffer(writing_), std::move(done)); },
      stream_);
}

bool Link::certificate_names(std::string_view name) {
  auto* s = std::get_if<TlsStream>(&stream_);
  return s != nullptr &&
         peers::certificate_names(SSL_get0_peer_certificate(s->native_handle()), name);
}

std::string Link::exported_key() {
  auto* s = std::get_if<TlsStream>(&stream_);
  if (s == nullptr || !ready_) return "";
  static constexpr std::string_view kLabel = "EXPORTER-vigil-peer-sync";
  std::string key(32, '\0');
  if (SSL_export_keying_material(s->native_handle(), reinterpret_cast<unsigned char*>(key.data()),
                                 key.size(), kLabel.data(), kLabel.size(), nullptr, 0, 0) != 1) {
    return "";
  }
  return key;
}

void Link::fail(const std::string& why) {
  if (!open_) return;
  close();
  if (handlers_.on_closed) handlers_.on_closed(why);
}

void Link::close() {
  if (!open_) return;
  open_ = false;
  boost::system::error_code ec;
  socket().close(ec);
}

}  // namespace vigil::peers
