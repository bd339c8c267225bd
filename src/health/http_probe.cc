// The HTTP and HTTPS part of a probe: one request, one answer read with Beast's parser.
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>

#include "health/http_check.h"
#include "health/probe_op.h"
#include "net/address.h"

namespace vigil::health {

namespace http = boost::beast::http;
using model::MonitorType;
using model::Outcome;

namespace {

bool closed_early(const error_code& ec) {
  return ec == http::error::end_of_stream || ec == http::error::partial_message ||
         ec == asio::error::eof || ec == asio::ssl::error::stream_truncated ||
         ec == asio::error::connection_reset;
}

// Why no full header could be read: the peer's doing (bad response), TLS, or the network.
model::CheckResult header_failure(const error_code& ec) {
  if (closed_early(ec)) {
    return {.outcome = Outcome::kBadResponse,
            .detail = "connection closed before a full HTTP header: " + ec.message()};
  }
  if (ec.category() == http::make_error_code(http::error::end_of_stream).category()) {
    return {.outcome = Outcome::kBadResponse, .detail = ec.message()};
  }
  if (ec.category() == asio::error::get_ssl_category()) {
    return {.outcome = Outcome::kTlsFailed, .detail = ec.message()};
  }
  return {.outcome = Outcome::kNetworkError, .detail = ec.message()};
}

}  // namespace

Result<std::string> make_request(const ProbeTarget& target) {
  const model::HealthMonitor& m = target.monitor;
  std::string token;
  if (!m.bearer_token_file.empty()) {
    auto t = read_bearer_token(m.bearer_token_file);
    if (!t) return std::unexpected(t.error());
    token = std::move(*t);
  }
  const std::string_view address = net::unbracketed(target.address);
  const bool tls = m.type == MonitorType::kHttps;
  return build_request(m.http_method, request_target(m.path),
                       host_header(m, address, target.port, tls), token,
                       /*keep_alive=*/target.kept != nullptr);
}

void ProbeOp::send_request() {
  with_stream([this](auto& stream) {
    asio::async_write(
        stream, asio::buffer(request_),
        [self = shared_from_this()](const error_code& ec, size_t) { self->on_written(ec); });
  });
}

void ProbeOp::on_written(const error_code& ec) {
  if (!running()) return;
  if (ec && retry_on_new_connection()) return;
  if (ec) {
    const bool tls = ec.category() == asio::error::get_ssl_category();
    return finish(tls ? Outcome::kTlsFailed : Outcome::kNetworkError, ec.message());
  }
  parser_.emplace();
  parser_->header_limit(kMaxHeader);
  // The body goes into a fixed buffer of kMaxBody bytes; when it is full the read stops with
  // need_buffer and the answer is judged on what fits. (string_body would instead reserve a
  // Content-Length's worth of memory up front, or fail before reading a byte when it is over
  // the limit.)
  parser_->body_limit(boost::none);
  if (target_.monitor.http_method == "HEAD") parser_->skip(true);
  body_.assign(kMaxBody, '\0');
  parser_->get().body().data = body_.data();
  parser_->get().body().size = body_.size();
  parser_->get().body().more = true;
  with_stream([this](auto& stream) {
    http::async_read(
        stream, buffer_, *parser_,
        [self = shared_from_this()](const error_code& e, size_t) { self->on_read(e); });
  });
}

void ProbeOp::on_read(const error_code& ec) {
  if (!running()) return;
  if (ec && !parser_->got_some() && buffer_.size() == 0 && retry_on_new_connection()) return;
  // Once the header is in, the status decides; an error in the body (cut, too big, truncated
  // TLS close) only means less detail.
  if (!parser_->is_header_done()) return finish(header_failure(ec));
  body_.resize(body_.size() - parser_->get().body().size);
  finish(http_result(parser_->get().result_int(), body_, target_.monitor.expected_codes));
}

bool ProbeOp::retry_on_new_connection() {
  if (!reused_) return false;
  reused_ = false;
  // Not from inside the failed operation's handler, which belongs to the stream replaced here.
  asio::post(io_, [self = shared_from_this()] {
    if (!self->running()) return;
    error_code ignored;
    if (self->tls_stream_) KeptConnection::keep_session_resumable(*self->tls_stream_);
    self->socket().close(ignored);
    self->tls_stream_.reset();
    self->buffer_.clear();
    self->parser_.reset();
    self->connect();
  });
  return true;
}

bool ProbeOp::may_keep(const model::CheckResult& result) const {
  // The whole answer was read (not cut at kMaxBody) and nothing followed it, so the next answer
  // on this connection starts at its first byte.
  return result.ok() && target_.kept && parser_ && parser_->is_done() && parser_->keep_alive() &&
         buffer_.size() == 0 && socket().is_open() &&
         clock_.now() - opened_ < target_.kept->max_age();
}

void ProbeOp::keep_connection() {
  KeptConnection::Connection c{.context = tls_context_, .opened = opened_};
  if (tls_stream_) {
    c.tls.emplace(std::move(*tls_stream_));
    tls_stream_.reset();
  } else {
    c.plain.emplace(std::move(socket_));
  }
  target_.kept->keep(std::move(c), kept_epoch_);
}

}  // namespace vigil::health
