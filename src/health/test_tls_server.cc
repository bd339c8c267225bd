#include "health/test_tls_server.h"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

namespace vigil::testing {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
using boost::system::error_code;
using tcp = asio::ip::tcp;

namespace {

std::string bio_string(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(n));
}

void add_extension(X509* x, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, x, x, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) std::abort();
  X509_add_ext(x, ext, -1);
  X509_EXTENSION_free(ext);
}

}  // namespace

KeyPair make_self_signed(const std::string& common_name) {
  static std::atomic<long> serial{1};
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* x = X509_new();
  if (key == nullptr || x == nullptr) std::abort();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
  X509_gmtime_adj(X509_getm_notBefore(x), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x), 24 * 3600);
  X509_set_pubkey(x, key);
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  X509_set_issuer_name(x, name);
  add_extension(x, NID_basic_constraints, "critical,CA:TRUE");
  add_extension(x, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1");
  if (X509_sign(x, key, EVP_sha256()) == 0) std::abort();

  KeyPair out;
  BIO* cert_bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(cert_bio, x);
  out.cert_pem = bio_string(cert_bio);
  BIO_free(cert_bio);
  BIO* key_bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(key_bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  out.key_pem = bio_string(key_bio);
  BIO_free(key_bio);
  X509_free(x);
  EVP_PKEY_free(key);
  return out;
}

std::string write_temp_file(const std::string& stem, const std::string& content) {
  static int counter = 0;
  const auto path = std::filesystem::temp_directory_path() /
                    fmt::format("vigil-health-{}-{}-{}", ::getpid(), counter++, stem);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
  return path.string();
}

std::string http_response(int status, const std::string& body) {
  return fmt::format("HTTP/1.1 {} X\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n{}",
                     status, body.size(), body);
}

namespace {
class Session;
}  // namespace

struct TestServer::Core {
  Core(asio::io_context& io, const ServerOptions& o) : options(o), acceptor(io) {}

  ServerOptions options;
  tcp::acceptor acceptor;
  std::optional<ssl::context> tls;
  KeyPair key_pair;
  Behaviour behaviour = Behaviour::kRespond;
  std::string response = http_response(200, "ok");
  int accepted = 0;
  std::vector<std::string> requests;
  std::vector<std::string> server_names;
  std::vector<std::string> tls_versions;
  std::vector<bool> resumed;
  std::vector<std::weak_ptr<Session>> open;  // connections that may still be open
  int drop_next_requests = 0;
  int unasked_sent = 0;
};

namespace {

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(std::shared_ptr<TestServer::Core> core, tcp::socket socket)
      : core_(std::move(core)),
        behaviour_(core_->behaviour),
        response_(core_->response),
        plain_(std::move(socket)) {
    if (core_->tls) tls_.emplace(std::move(plain_), *core_->tls);
  }

  void start() {
    core_->open.push_back(weak_from_this());
    if (!tls_) return serve();
    tls_->async_handshake(ssl::stream_base::server,
                          [self = shared_from_this()](const error_code& ec) {
                            if (!ec) self->on_handshake();
                          });
  }

  // Writes `bytes` now, unasked; a read may be pending meanwhile, which a full-duplex stream
  // allows.
  void send(const std::string& bytes) {
    unasked_ = bytes;
    with_stream([this](auto& s) {
      asio::async_write(s, asio::buffer(unasked_),
                        [self = shared_from_this()](const error_code& ec, size_t) {
                          if (!ec) ++self->core_->unasked_sent;
                        });
    });
  }

  void close() {
    error_code ignored;
    (tls_ ? tls_->next_layer() : plain_).close(ignored);
  }

 private:
  void on_handshake() {
    SSL* s = tls_->native_handle();
    const char* sni = SSL_get_servername(s, TLSEXT_NAMETYPE_host_name);
    core_->server_names.push_back(sni ? sni : "");
    core_->tls_versions.push_back(SSL_get_version(s));
    core_->resumed.push_back(SSL_session_reused(s) == 1);
    serve();
  }

  template <typename F>
  void with_stream(F&& f) {
    if (tls_) {
      f(*tls_);
    } else {
      f(plain_);
    }
  }

  void serve() {
    switch (behaviour_) {
      case Behaviour::kClose:
        return close();
      case Behaviour::kGreet:
        return respond();
      case Behaviour::kRespond:
      case Behaviour::kSilent:
      case Behaviour::kKeepAlive:
        break;
    }
    with_stream([this](auto& s) {
      asio::async_read_until(s, asio::dynamic_buffer(in_), "\r\n\r\n",
                             [self = shared_from_this()](const error_code& ec, size_t n) {
                               if (ec) return;
                               self->core_->requests.push_back(self->in_.substr(0, n));
                               self->in_.erase(0, n);
                               if (self->behaviour_ == Behaviour::kSilent) return self->drain();
                               if (self->behaviour_ == Behaviour::kKeepAlive) {
                                 return self->respond_and_serve();
                               }
                               self->respond();
                             });
    });
  }

  void respond() {
    with_stream([this](auto& s) {
      asio::async_write(s, asio::buffer(response_),
                        [self = shared_from_this()](const error_code&, size_t) { self->close(); });
    });
  }

  void respond_and_serve() {
    if (core_->drop_next_requests > 0) {
      --core_->drop_next_requests;
      return close();
    }
    response_ = core_->response;
    with_stream([this](auto& s) {
      asio::async_write(s, asio::buffer(response_),
                        [self = shared_from_this()](const error_code& ec, size_t) {
                          if (!ec) self->serve();
                        });
    });
  }

  // Reads and ignores until the peer goes away, holding the connection open meanwhile.
  void drain() {
    with_stream([this](auto& s) {
      s.async_read_some(asio::buffer(scratch_),
                        [self = shared_from_this()](const error_code& ec, size_t) {
                          if (!ec) self->drain();
                        });
    });
  }

  std::shared_ptr<TestServer::Core> core_;
  const Behaviour behaviour_;
  std::string response_;
  std::string unasked_;
  tcp::socket plain_;
  std::optional<ssl::stream<tcp::socket>> tls_;
  std::string in_;
  std::array<char, 4096> scratch_{};
};

void accept_next(std::shared_ptr<TestServer::Core> core) {
  auto* acceptor = &core->acceptor;
  acceptor->async_accept([core = std::move(core)](const error_code& ec, tcp::socket socket) {
    if (ec) return;
    ++core->accepted;
    // As real servers do: without it, an unasked write behind an unacknowledged answer waits
    // for the peer's delayed ACK (Nagle).
    error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    std::make_shared<Session>(core, std::move(socket))->start();
    accept_next(core);
  });
}

void set_up_tls(TestServer::Core& core) {
  const int version = core.options.tls == TlsVersion::kTls12   ? TLS1_2_VERSION
                      : core.options.tls == TlsVersion::kTls13 ? TLS1_3_VERSION
                                                               : 0;
  core.key_pair = make_self_signed("vigil-test-server");
  ssl::context& ctx = core.tls.emplace(ssl::context::tls_server);
  SSL_CTX_set_min_proto_version(ctx.native_handle(), version);
  SSL_CTX_set_max_proto_version(ctx.native_handle(), version);
  ctx.use_certificate(asio::buffer(core.key_pair.cert_pem), ssl::context::pem);
  ctx.use_private_key(asio::buffer(core.key_pair.key_pem), ssl::context::pem);
  if (!core.options.client_ca_pem.empty()) {
    ctx.add_certificate_authority(asio::buffer(core.options.client_ca_pem));
    ctx.set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  }
}

}  // namespace

TestServer::TestServer(asio::io_context& io, ServerOptions options)
    : core_(std::make_shared<Core>(io, options)) {
  if (options.tls != TlsVersion::kNone) set_up_tls(*core_);
  const tcp::endpoint endpoint(asio::ip::make_address(options.bind), 0);
  core_->acceptor.open(endpoint.protocol());
  core_->acceptor.set_option(tcp::acceptor::reuse_address(true));
  core_->acceptor.bind(endpoint);
  core_->acceptor.listen();
  accept_next(core_);
}

TestServer::~TestServer() {
  error_code ignored;
  core_->acceptor.close(ignored);
}

uint16_t TestServer::port() const { return core_->acceptor.local_endpoint().port(); }
const KeyPair& TestServer::key_pair() const { return core_->key_pair; }
void TestServer::set_behaviour(Behaviour behaviour, std::string response) {
  core_->behaviour = behaviour;
  core_->response = std::move(response);
}
void TestServer::send_on_open_connections(const std::string& bytes) {
  for (const auto& weak : core_->open) {
    if (auto session = weak.lock()) session->send(bytes);
  }
}
void TestServer::close_open_connections() {
  for (const auto& weak : core_->open) {
    if (auto session = weak.lock()) session->close();
  }
  core_->open.clear();
}
void TestServer::drop_next_requests(int n) { core_->drop_next_requests = n; }
int TestServer::unasked_sent() const { return core_->unasked_sent; }
int TestServer::accepted() const { return core_->accepted; }
const std::vector<std::string>& TestServer::requests() const { return core_->requests; }
const std::vector<std::string>& TestServer::server_names() const { return core_->server_names; }
const std::vector<std::string>& TestServer::tls_versions() const { return core_->tls_versions; }
const std::vector<bool>& TestServer::resumed() const { return core_->resumed; }

}  // namespace vigil::testing
