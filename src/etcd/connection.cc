#include "etcd/connection.h"

#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <cerrno>
#include <optional>

namespace vigil::etcd {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using boost::system::error_code;

struct Connection::Exchange {
  std::string target;
  std::string body;
  RequestOptions options;
  std::chrono::milliseconds timeout;
  bool streaming = false;
  std::function<void(Answer)> done;  // request's done, or stream's on_end
  std::function<bool(std::string_view)> on_data;
  http::request<http::string_body> request;
  std::optional<http::response_parser<http::string_body>> whole;
  std::optional<http::response_parser<http::buffer_body>> streamed;
  std::array<char, 16384> chunk{};
  std::string error_body;  // of a stream answered with another status than 200
  std::vector<asio::ip::tcp::endpoint> addresses;  // the endpoint's host resolved
  bool sent = false;
  bool timed_out = false;
  bool header_read = false;  // of a stream: the timeout no longer applies
};

namespace {

constexpr size_t kMaxErrorBody = 16384;

// What went wrong, in words an operator can act on.
std::string describe(const error_code& ec, const std::string& service) {
  if (ec == asio::error::eof || ec == http::error::end_of_stream ||
      ec == asio::ssl::error::stream_truncated || ec == http::error::partial_message) {
    return "the server closed the connection";
  }
  std::string why = ec.message();
  if (ec.category() == make_error_code(http::error::bad_version).category())
    return "bad HTTP answer: " + why;
  // The server's alert about this side's certificate (TLS 1.3 sends it after the handshake, so
  // it comes on the first read): OpenSSL's words do not say whose certificate was bad.
  for (const char* alert : {"alert bad certificate", "alert certificate required",
                            "alert unknown ca", "alert certificate unknown"}) {
    if (why.find(alert) != std::string::npos) {
      return why + " (" + service + " refused this client's certificate, or wants one)";
    }
  }
  return why;
}

}  // namespace

Connection::Connection(asio::io_context& io, Endpoint endpoint,
                       std::shared_ptr<asio::ssl::context> tls)
    : io_(io),
      endpoint_(std::move(endpoint)),
      tls_(std::move(tls)),
      resolver_(io),
      timer_(io),
      stream_(endpoint_.tls ? std::variant<Tcp, Tls>(std::in_place_type<Tls>, io, *tls_)
                            : std::variant<Tcp, Tls>(std::in_place_type<Tcp>, io)) {}

Connection::Tcp& Connection::socket() {
  if (auto* tls = std::get_if<Tls>(&stream_)) return tls->next_layer();
  return std::get<Tcp>(stream_);
}

template <typename F>
void Connection::with_stream(F&& f) {
  std::visit(f, stream_);
}

void Connection::request(std::string target, std::string body, std::chrono::milliseconds timeout,
                         std::function<void(Answer)> done, RequestOptions options) {
  auto x = std::make_shared<Exchange>();
  x->target = std::move(target);
  x->body = std::move(body);
  x->options = std::move(options);
  x->timeout = timeout;
  x->done = std::move(done);
  start(std::move(x));
}

void Connection::stream(std::string target, std::string body, std::chrono::milliseconds timeout,
                        std::function<bool(std::string_view)> on_data,
                        std::function<void(Answer)> on_end, RequestOptions options) {
  auto x = std::make_shared<Exchange>();
  x->target = std::move(target);
  x->body = std::move(body);
  x->options = std::move(options);
  x->timeout = timeout;
  x->streaming = true;
  x->on_data = std::move(on_data);
  x->done = std::move(on_end);
  start(std::move(x));
}

void Connection::close() {
  closed_ = true;
  current_.reset();
  timer_.cancel();
  resolver_.cancel();
  error_code ignored;
  socket().close(ignored);
}

bool Connection::usable() {
  if (closed_ || broken_ || current_ != nullptr) return false;
  if (!connected_) return true;
  if (buffer_.size() > 0) return false;  // bytes after the last answer: not HTTP we asked for
  char byte;
  const ssize_t n = ::recv(socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

void Connection::start(std::shared_ptr<Exchange> x) {
  current_ = x;
  timer_.expires_after(x->timeout);
  timer_.async_wait([self = shared_from_this(), x](error_code ec) {
    if (ec || self->closed_ || self->current_ != x || x->header_read) return;
    // Closing the socket makes the pending operation fail; broken() then names the timeout.
    x->timed_out = true;
    self->resolver_.cancel();
    error_code ignored;
    self->socket().close(ignored);
  });
  if (connected_) {
    write(std::move(x));
  } else {
    connect(std::move(x));
  }
}

void Connection::connect(std::shared_ptr<Exchange> x) {
  resolver_.async_resolve(
      endpoint_.host, endpoint_.port,
      [self = shared_from_this(), x](error_code ec, asio::ip::tcp::resolver::results_type found) {
        if (self->closed_ || self->current_ != x) return;
        if (ec) return self->broken(x, "resolve", ec);
        for (const auto& entry : found) x->addresses.push_back(entry.endpoint());
        self->connect_next(x, 0);
      });
}

// One address after the other, by hand: asio::async_connect over a range would reopen the socket
// that the timeout closed and go on to the next address.
void Connection::connect_next(std::shared_ptr<Exchange> x, size_t index) {
  error_code ignored;
  socket().close(ignored);
  socket().async_connect(x->addresses[index], [self = shared_from_this(), x, index](error_code ec) {
    if (self->closed_ || self->current_ != x) return;
    if (ec && !x->timed_out && index + 1 < x->addresses.size()) {
      return self->connect_next(x, index + 1);
    }
    if (ec) return self->broken(x, "connect", ec);
    error_code ignored;
    self->socket().set_option(asio::ip::tcp::no_delay(true), ignored);
    self->keep_alive();
    if (self->endpoint_.tls) return self->handshake(x);
    self->connected_ = true;
    self->write(x);
  });
}

// TCP keepalive, so that a watch (which only reads) learns that a host went away: within about
// 10 + 3 * 5 s of silence the kernel gives up and the read fails.
void Connection::keep_alive() {
  const int fd = socket().native_handle();
  const int on = 1, idle = 10, interval = 5, count = 3;
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

void Connection::handshake(std::shared_ptr<Exchange> x) {
  Tls& tls = std::get<Tls>(stream_);
  error_code ec;
  const std::string& name = endpoint_.tls_name.empty() ? endpoint_.host : endpoint_.tls_name;
  asio::ip::make_address(name, ec);
  if (ec) SSL_set_tlsext_host_name(tls.native_handle(), name.c_str());  // a name: SNI
  tls.set_verify_mode(asio::ssl::verify_peer, ec);
  tls.set_verify_callback(asio::ssl::host_name_verification(name), ec);
  tls.async_handshake(asio::ssl::stream_base::client,
                      [self = shared_from_this(), x](error_code ec) {
                        if (self->closed_ || self->current_ != x) return;
                        if (ec) return self->broken(x, "TLS handshake", ec);
                        self->connected_ = true;
                        self->write(x);
                      });
}

void Connection::write(std::shared_ptr<Exchange> x) {
  auto& req = x->request;
  req = http::request<http::string_body>(x->options.method, x->target, 11);
  const bool v6 = endpoint_.host.find(':') != std::string::npos;
  req.set(http::field::host, v6 ? fmt::format("[{}]:{}", endpoint_.host, endpoint_.port)
                                : fmt::format("{}:{}", endpoint_.host, endpoint_.port));
  if (x->options.method == http::verb::post) req.set(http::field::content_type, "application/json");
  req.set(http::field::accept, "application/json");
  if (!x->options.authorization.empty()) {
    req.set(http::field::authorization, x->options.authorization);
  }
  req.keep_alive(true);
  req.body() = std::move(x->body);
  req.prepare_payload();
  x->sent = true;
  with_stream([&](auto& s) {
    http::async_write(s, req, [self = shared_from_this(), x](error_code ec, size_t) {
      if (self->closed_ || self->current_ != x) return;
      if (ec) return self->broken(x, "write", ec);
      if (x->streaming) return self->read_header(x);
      self->read_whole(x);
    });
  });
}

void Connection::read_whole(std::shared_ptr<Exchange> x) {
  x->whole.emplace();
  x->whole->body_limit(kMaxBody);
  with_stream([&](auto& s) {
    http::async_read(s, buffer_, *x->whole, [self = shared_from_this(), x](error_code ec, size_t) {
      if (self->closed_ || self->current_ != x) return;
      if (ec) return self->broken(x, "read", ec);
      auto& res = x->whole->get();
      if (!res.keep_alive()) self->broken_ = true;
      self->finish(x, Answer{"", true, res.result_int(), std::move(res.body())});
    });
  });
}

void Connection::read_header(std::shared_ptr<Exchange> x) {
  x->streamed.emplace();
  x->streamed->body_limit(boost::none);  // the stream is endless; LineSplitter bounds a message
  with_stream([&](auto& s) {
    http::async_read_header(s, buffer_, *x->streamed,
                            [self = shared_from_this(), x](error_code ec, size_t) {
                              if (self->closed_ || self->current_ != x) return;
                              if (ec) return self->broken(x, "read", ec);
                              if (x->streamed->get().result_int() == 200) {
                                x->header_read = true;
                                self->timer_.cancel();
                              }
                              self->read_stream(x);
                            });
  });
}

void Connection::read_stream(std::shared_ptr<Exchange> x) {
  auto& body = x->streamed->get().body();
  body.data = x->chunk.data();
  body.size = x->chunk.size();
  with_stream([&](auto& s) {
    http::async_read_some(
        s, buffer_, *x->streamed, [self = shared_from_this(), x](error_code ec, size_t) {
          if (self->closed_ || self->current_ != x) return;
          if (ec == http::error::need_buffer) ec = {};
          if (ec) return self->broken(x, "read", ec);
          auto& parser = *x->streamed;
          const size_t got = x->chunk.size() - parser.get().body().size;
          const unsigned status = parser.get().result_int();
          if (status != 200) {
            x->error_body.append(x->chunk.data(), got);
            if (parser.is_done() || x->error_body.size() >= kMaxErrorBody) {
              self->broken_ = true;
              return self->finish(x, Answer{"", true, status, std::move(x->error_body)});
            }
            return self->read_stream(x);
          }
          if (got > 0 && !x->on_data(std::string_view(x->chunk.data(), got))) return;
          if (self->closed_ || self->current_ != x) return;  // on_data closed this
          if (parser.is_done()) {
            self->broken_ = true;
            return self->finish(x, Answer{self->endpoint_.service + " at " + self->endpoint_.url +
                                              ": the stream ended",
                                          true,
                                          200,
                                          {}});
          }
          self->read_stream(x);
        });
  });
}

void Connection::broken(const std::shared_ptr<Exchange>& x, const std::string& stage,
                        const error_code& ec) {
  broken_ = true;
  error_code ignored;
  socket().close(ignored);
  const std::string why = x->timed_out ? fmt::format("no answer within {} ms", x->timeout.count())
                                       : stage + ": " + describe(ec, endpoint_.service);
  finish(x, Answer{endpoint_.service + " at " + endpoint_.url + ": " + why, x->sent, 0, {}});
}

void Connection::finish(const std::shared_ptr<Exchange>& x, Answer answer) {
  timer_.cancel();
  current_.reset();
  if (broken_) {
    error_code ignored;
    socket().close(ignored);
  }
  auto done = std::move(x->done);
  done(std::move(answer));  // last: it may close or drop this connection
}

}  // namespace vigil::etcd
