// ProbeOp: one running probe (private to health/; include only from probe .cc files, it pulls in
// Asio, Asio SSL and Beast). Kept alive by its own pending handlers; a ProbeHandle only watches.
// Control thread only, like the Prober that creates it.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <memory>
#include <optional>
#include <string>

#include "health/kept_connection.h"
#include "health/probe.h"
#include "health/tls_socket.h"

namespace vigil::health {

namespace asio = boost::asio;
using boost::system::error_code;
using tcp = asio::ip::tcp;

// The HTTP request for an HTTP or HTTPS monitor (http_probe.cc); fails on a bad method, path,
// Host or an unreadable bearer token file.
Result<std::string> make_request(const ProbeTarget& target);

class ProbeOp : public RunningProbe, public std::enable_shared_from_this<ProbeOp> {
 public:
  // `tls` is required for TLS-HELLO and HTTPS, ignored otherwise.
  ProbeOp(asio::io_context& io, const Clock& clock, std::shared_ptr<const ProbeTarget> target,
          std::shared_ptr<asio::ssl::context> tls, ProbeCallback done, OpenSocket open_socket);

  // Sends `request` (HTTP and HTTPS only) on the member's kept connection when it has one;
  // otherwise resolves, connects, and goes on as the monitor type says.
  void start(std::string request);
  // Reports `result` without touching the network, from the io_context (never inline).
  void fail_soon(model::CheckResult result);
  void cancel() override;
  bool running() const override { return static_cast<bool>(done_); }
  bool answered() const override;

 private:
  // Takes the member's kept connection, when it may serve and, for a name (`resolved` not
  // null), still goes to one of its addresses.
  bool take_kept(const tcp::resolver::results_type* resolved);
  void connect();
  // The kept connection failed before a byte of the answer: it was stale (the member closed it
  // meanwhile), which says nothing about the member. The check connects afresh.
  bool retry_on_new_connection();
  void on_resolved(const error_code& ec, const tcp::resolver::results_type& endpoints);
  void on_connected(const error_code& ec);
  // The connection is made (and its PROXY header, when the target wants one, sent).
  void on_ready();
  void on_handshake(const error_code& ec);
  // http_probe.cc
  void send_request();
  void on_written(const error_code& ec);
  void on_read(const error_code& ec);

  void finish(model::CheckResult result);
  void finish(model::Outcome outcome, std::string detail);
  // After a passing check: may its connection carry the next one?
  bool may_keep(const model::CheckResult& result) const;
  void keep_connection();
  model::MonitorType type() const { return target_.monitor.type; }
  tcp::socket& socket() { return tls_stream_ ? tls_stream_->next_layer() : socket_; }
  const tcp::socket& socket() const { return tls_stream_ ? tls_stream_->next_layer() : socket_; }

  // Calls f with the stream the HTTP exchange runs on: TLS or plain.
  template <typename F>
  void with_stream(F&& f) {
    if (tls_stream_) {
      f(*tls_stream_);
    } else {
      f(socket_);
    }
  }

  const Clock& clock_;
  // Shared with the checker's member rather than copied: a monitor is a dozen strings, and a
  // copy per check showed in profiles at ten thousand checks a second.
  const std::shared_ptr<const ProbeTarget> shared_target_;
  const ProbeTarget& target_;
  std::string host_;  // target_.address without IPv6 brackets
  bool ip_literal_ = false;
  std::shared_ptr<asio::ssl::context> tls_context_;
  ProbeCallback done_;  // empty once finished or cancelled
  TimePoint started_;

  asio::io_context& io_;
  OpenSocket open_socket_;
  std::optional<tcp::resolver> resolver_;  // only for host names: addresses are not resolved
  tcp::socket socket_;                     // plain probes; TLS probes use tls_stream_'s own
  std::optional<TlsSocket> tls_stream_;
  bool reused_ = false;        // the connection was kept from an earlier check
  uint64_t bytes_before_ = 0;  // the kept connection's bytes from the member before this check
  TimePoint opened_{};         // when the connection was made (HTTPS: its session's full handshake)
  uint64_t kept_epoch_ = 0;

  std::string request_;
  std::string proxy_header_;  // what on_connected() writes first, when the target asks for it
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::response_parser<boost::beast::http::buffer_body>> parser_;
  std::string body_;
};

}  // namespace vigil::health
