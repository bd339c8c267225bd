#include "health/probe.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <string>

#include "health/probe_op.h"
#include "health/tcp_checks.h"
#include "health/tls_resumption.h"
#include "net/address.h"
#include "net/proxy_header.h"
#include "net/tcp_info.h"

namespace vigil::health {

namespace ssl = asio::ssl;
using model::MonitorType;
using model::Outcome;

void ProbeHandle::cancel() {
  if (auto op = op_.lock()) op->cancel();
}

bool ProbeHandle::running() const {
  auto op = op_.lock();
  return op && op->running();
}

bool ProbeHandle::answered() const {
  auto op = op_.lock();
  return op && op->running() && op->answered();
}

Prober::Prober(asio::io_context& io, const Clock& clock, CheckSockets sockets)
    : io_(io),
      clock_(clock),
      open_socket_(sockets.open),
      tcp_(TcpChecks::create(io, clock, sockets)) {}
Prober::~Prober() = default;

ProbeHandle Prober::start(const std::shared_ptr<const ProbeTarget>& shared_target,
                          ProbeCallback done) {
  const ProbeTarget& target = *shared_target;
  const MonitorType type = target.monitor.type;
  // The fast path for TCP checks only connects: a PROXY header needs the full probe.
  if (type == MonitorType::kTcp && tcp_ && target.proxy_header == model::ProxyProtocol::kOff) {
    error_code ec;
    const asio::ip::address address = asio::ip::make_address(net::unbracketed(target.address), ec);
    if (!ec) return tcp_->start(tcp::endpoint(address, target.port), std::move(done));
  }
  std::optional<model::CheckResult> early;
  std::shared_ptr<ssl::context> tls;
  if (model::uses_tls(type)) {
    auto ctx = tls_.get(target.monitor.tls);
    if (ctx) {
      tls = *ctx;
    } else {
      early = model::CheckResult{
          .outcome = ctx.error().local ? Outcome::kLocalError : Outcome::kTlsFailed,
          .detail = ctx.error().message};
    }
  }
  std::string request;
  if (!early && model::uses_http(type)) {
    auto r = make_request(target);
    if (r) {
      request = std::move(*r);
    } else {
      early = model::CheckResult{.outcome = Outcome::kNetworkError, .detail = r.error().message};
    }
  }
  auto op =
      std::make_shared<ProbeOp>(io_, clock_, shared_target, tls, std::move(done), open_socket_);
  if (early) {
    op->fail_soon(std::move(*early));
  } else {
    op->start(std::move(request));
  }
  return ProbeHandle(op);
}

ProbeOp::ProbeOp(asio::io_context& io, const Clock& clock,
                 std::shared_ptr<const ProbeTarget> target, std::shared_ptr<ssl::context> tls,
                 ProbeCallback done, OpenSocket open_socket)
    : clock_(clock),
      shared_target_(std::move(target)),
      target_(*shared_target_),
      host_(target_.address),
      tls_context_(std::move(tls)),
      done_(std::move(done)),
      started_(clock.now()),
      io_(io),
      open_socket_(open_socket),
      socket_(io) {
  host_ = std::string(net::unbracketed(host_));
  error_code ec;
  asio::ip::make_address(host_, ec);
  ip_literal_ = !ec;
}

void ProbeOp::start(std::string request) {
  request_ = std::move(request);
  if (target_.kept) kept_epoch_ = target_.kept->epoch();
  // A name is resolved first: its kept connection serves only if it still goes to one of the
  // name's addresses (on_resolved).
  if (ip_literal_ && take_kept(nullptr)) return send_request();
  connect();
}

bool ProbeOp::take_kept(const tcp::resolver::results_type* resolved) {
  KeptConnection* kept = target_.kept.get();
  if (kept == nullptr) return false;
  // An HTTPS check without a TLS context failed before start(); take() compares contexts.
  std::optional<KeptConnection::Connection> c = kept->take(clock_.now(), tls_context_.get());
  if (!c) return false;
  if (resolved != nullptr) {
    error_code ec;
    const tcp::endpoint peer = (c->tls ? c->tls->next_layer() : *c->plain).remote_endpoint(ec);
    const bool current = !ec && std::ranges::any_of(*resolved, [&](const auto& entry) {
      return entry.endpoint() == peer;
    });
    if (!current) {
      KeptConnection::close(*c);
      return false;
    }
  }
  if (c->tls) {
    tls_stream_.emplace(std::move(*c->tls));
  } else {
    socket_ = std::move(*c->plain);
  }
  opened_ = c->opened;
  reused_ = true;
  // The kept connection carried earlier checks' answers: only bytes after this point are this
  // check's.
  bytes_before_ = net::bytes_received(socket().native_handle());
  return true;
}

void ProbeOp::connect() {
  const MonitorType type = target_.monitor.type;
  if (tls_context_ && model::uses_tls(type)) {
    try {
      tls_stream_.emplace(io_, *tls_context_);
    } catch (const std::exception& e) {  // SSL_new failing: out of memory, ours
      return fail_soon({.outcome = Outcome::kLocalError, .detail = e.what()});
    }
  }
  if (ip_literal_) {
    // No resolver at all for an address: Asio's resolves on a thread of its own, which costs
    // more than the check itself when thousands of members are checked every second.
    error_code ec;
    const tcp::endpoint endpoint(asio::ip::make_address(host_, ec), target_.port);
    // Opened here rather than by async_connect, through the seam, so that a test can make it
    // fail as a flood of clients would.
    const int fd = open_socket_(endpoint.protocol().family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return fail_soon(socket_failure("socket", errno));
    socket().assign(endpoint.protocol(), fd, ec);
    if (ec) {
      ::close(fd);
      return fail_soon({.outcome = Outcome::kNetworkError, .detail = ec.message()});
    }
    socket().async_connect(
        endpoint, [self = shared_from_this()](const error_code& e) { self->on_connected(e); });
    return;
  }
  resolver_.emplace(io_);
  resolver_->async_resolve(
      host_, std::to_string(target_.port), tcp::resolver::numeric_service,
      [self = shared_from_this()](const error_code& ec, const tcp::resolver::results_type& r) {
        self->on_resolved(ec, r);
      });
}

void ProbeOp::fail_soon(model::CheckResult result) {
  asio::post(io_, [self = shared_from_this(), r = std::move(result)] { self->finish(r); });
}

bool ProbeOp::answered() const {
  if (type() == MonitorType::kTcp || !socket().is_open()) return false;
  // Asio's native_handle() is not const; reading TCP_INFO changes nothing.
  auto& s = const_cast<tcp::socket&>(socket());
  return net::bytes_received(s.native_handle()) > bytes_before_;
}

void ProbeOp::cancel() {
  if (running() && type() == MonitorType::kHttps && target_.resumption) {
    target_.resumption->forget();  // timed out: the next check starts afresh
  }
  done_ = nullptr;
  if (resolver_) resolver_->cancel();
  error_code ignored;
  socket().close(ignored);  // pending operations end with operation_aborted and drop `this`
}

void ProbeOp::on_resolved(const error_code& ec, const tcp::resolver::results_type& endpoints) {
  if (!running()) return;
  if (ec) return finish(Outcome::kResolveFailed, ec.message());
  if (endpoints.empty()) return finish(Outcome::kResolveFailed, "no address");
  if (take_kept(&endpoints)) return send_request();
  // Tries each address in turn (a name may resolve to both IPv6 and IPv4); the error reported
  // is the last one's.
  asio::async_connect(socket(), endpoints,
                      [self = shared_from_this()](const error_code& e, const tcp::endpoint&) {
                        self->on_connected(e);
                      });
}

void ProbeOp::on_connected(const error_code& ec) {
  if (!running()) return;
  if (ec) {
    // Asio opens the socket itself for names: a shortage shows here as EMFILE and the like.
    if (ec.category() == boost::system::system_category() && is_local_errno(ec.value())) {
      return finish(socket_failure("connect", ec.value()));
    }
    const bool refused =
        ec == asio::error::connection_refused || ec == asio::error::connection_reset;
    return finish(refused ? Outcome::kRefused : Outcome::kNetworkError, ec.message());
  }
  opened_ = clock_.now();
  if (target_.proxy_header != model::ProxyProtocol::kOff) {
    std::array<char, net::kMaxProxyHeaderOut> out{};
    const auto version = target_.proxy_header == model::ProxyProtocol::kV1 ? net::ProxyVersion::kV1
                                                                           : net::ProxyVersion::kV2;
    proxy_header_.assign(out.data(), net::encode_proxy_header(version, nullptr, nullptr, out));
    // Always on the plain socket: the header comes before TLS, as HAProxy sends it.
    asio::async_write(socket(), asio::buffer(proxy_header_),
                      [self = shared_from_this()](const error_code& e, size_t) {
                        if (!self->running()) return;
                        if (e) return self->finish(Outcome::kNetworkError, e.message());
                        self->on_ready();
                      });
    return;
  }
  on_ready();
}

void ProbeOp::on_ready() {
  switch (target_.monitor.type) {
    case MonitorType::kTcp:
      return finish(Outcome::kOk, "");
    case MonitorType::kHttp:
      return send_request();
    case MonitorType::kTlsHello:
    case MonitorType::kHttps:
      break;
  }
  const model::TlsCheck& tls = target_.monitor.tls;
  SSL* ssl = tls_stream_->native_handle();
  // SNI only for names: RFC 6066 forbids IP literals in server_name.
  const std::string sni = !tls.server_name.empty() ? tls.server_name : ip_literal_ ? "" : host_;
  if (!sni.empty()) SSL_set_tlsext_host_name(ssl, sni.c_str());
  if (tls.verify) {
    // OpenSSL's own name check (rather than a verify callback) so that a mismatch is reported
    // as "hostname mismatch", not as an unspecified verification error.
    const std::string& name = tls.server_name.empty() ? host_ : tls.server_name;
    error_code literal;
    asio::ip::make_address(name, literal);
    if (!literal) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name.c_str());
    } else {
      SSL_set1_host(ssl, name.c_str());
    }
  }
  if (type() == MonitorType::kHttps && target_.resumption) {
    target_.resumption->offer(ssl, clock_.now());
  }
  tls_stream_->async_handshake(
      [self = shared_from_this()](const error_code& e) { self->on_handshake(e); });
}

void ProbeOp::on_handshake(const error_code& ec) {
  if (!running()) return;
  SSL* ssl = tls_stream_->native_handle();
  if (ec) {
    std::string detail = ec.message();
    const long verify = SSL_get_verify_result(ssl);
    if (target_.monitor.tls.verify && verify != X509_V_OK) {
      detail += std::string(": ") + X509_verify_cert_error_string(verify);
    }
    return finish(Outcome::kTlsFailed, std::move(detail));
  }
  if (target_.monitor.type == MonitorType::kHttps) {
    // A kept connection's age counts from the handshake that verified the certificate, so that
    // one happens at least every KeptConnection::max_age() however the connections were made.
    if (SSL_session_reused(ssl) == 1 && target_.resumption) {
      opened_ = std::min(opened_, target_.resumption->full_handshake_at());
    }
    return send_request();
  }
  finish(Outcome::kOk, SSL_get_version(ssl));
}

void ProbeOp::finish(Outcome outcome, std::string detail) {
  finish(model::CheckResult{.outcome = outcome, .detail = std::move(detail)});
}

void ProbeOp::finish(model::CheckResult result) {
  if (!running()) return;
  ProbeCallback done = std::move(done_);
  done_ = nullptr;
  result.duration = clock_.now() - started_;
  if (resolver_) resolver_->cancel();
  result.reused_connection = reused_;
  if (type() == MonitorType::kHttps && target_.resumption && tls_stream_) {
    // An answer, even an unexpected one, came over a good session; anything else may mean a
    // bad one. A kept connection's session was kept when that connection was made.
    const bool answered = result.outcome == Outcome::kOk || result.outcome == Outcome::kBadStatus;
    if (!answered) {
      target_.resumption->forget();
    } else if (!reused_) {
      target_.resumption->keep(tls_stream_->native_handle(), clock_.now());
    }
  }
  if (may_keep(result)) {
    keep_connection();
    return done(std::move(result));
  }
  error_code ignored;
  if (tls_stream_) KeptConnection::keep_session_resumable(*tls_stream_);
  if (type() == MonitorType::kTcp && socket().is_open()) {
    // A reset rather than a FIN, as HAProxy closes its checks: nothing was said on the
    // connection, and a FIN would leave a TIME_WAIT socket behind for every check (600,000 of
    // them for ten thousand members checked every second) and cost the handshake's teardown.
    socket().set_option(asio::socket_base::linger(true, 0), ignored);
  }
  socket().close(ignored);
  done(std::move(result));
}

}  // namespace vigil::health
