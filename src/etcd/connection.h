// Connection: one HTTP/1.1 connection to one endpoint, plain or TLS, on the client's io_context,
// kept alive across requests: etcd's JSON gateway (POSTs), and the Kubernetes API that
// members_from reads (GETs with a bearer token, kube/members_source.h). Owned by etcd::Client
// through a shared_ptr that every pending operation also holds, so that close() can return at once:
// the operations then finish as aborted and no callback runs after close(). One request or one
// stream at a time.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "etcd/endpoint.h"

namespace vigil::etcd {

// How a request went. error is empty on an answer (of any HTTP status); `sent` tells whether the
// request may have reached etcd (false: it failed while connecting, and another endpoint can be
// tried without doing anything twice).
struct Answer {
  std::string error;
  bool sent = false;
  unsigned status = 0;
  std::string body;
};

// What a request sends besides its target and body: etcd's gateway takes POSTs of JSON; the
// Kubernetes API, GETs with a bearer token.
struct RequestOptions {
  boost::beast::http::verb method = boost::beast::http::verb::post;
  std::string authorization;  // the Authorization header's value; empty: none
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  static constexpr size_t kMaxBody = 64 << 20;  // a unary answer (a range of a whole prefix)
  // Bytes read but not yet parsed: a header (Beast's limit is 8 KiB) or a chunk's size line; a
  // body goes on to its reader as it comes, so this bounds what a broken server can make us hold.
  static constexpr size_t kMaxBuffered = 1 << 20;

  // Requires: `tls` non-null for an https endpoint.
  Connection(boost::asio::io_context& io, Endpoint endpoint,
             std::shared_ptr<boost::asio::ssl::context> tls);

  // POSTs `body` (JSON) to `target` and reads the whole answer, connecting first when not
  // connected, all within `timeout`.
  void request(std::string target, std::string body, std::chrono::milliseconds timeout,
               std::function<void(Answer)> done, RequestOptions options = {});

  // POSTs `body` and hands each piece of a 200 answer's body to on_data as it comes, until the
  // stream ends, on_data returns false, or close(). `timeout` bounds getting the answer's header.
  // on_end once (not after close() or a false from on_data), with what ended it; an answer other
  // than 200 comes to on_end with its status and body.
  void stream(std::string target, std::string body, std::chrono::milliseconds timeout,
              std::function<bool(std::string_view)> on_data, std::function<void(Answer)> on_end,
              RequestOptions options = {});

  // Closes at once; no callback runs after this.
  void close();
  // Whether it can take the next request: not closed, not broken by an error, none under way,
  // and, when connected, nothing arrived on it since the last answer (etcd restarted and closed
  // it, say): a request sent on such a connection would fail after it may have reached etcd.
  bool usable();
  const Endpoint& endpoint() const { return endpoint_; }

 private:
  using Tcp = boost::asio::ip::tcp::socket;
  using Tls = boost::asio::ssl::stream<Tcp>;
  struct Exchange;  // the request under way

  void start(std::shared_ptr<Exchange> x);
  void connect(std::shared_ptr<Exchange> x);
  void connect_next(std::shared_ptr<Exchange> x, size_t index);
  void keep_alive();
  void handshake(std::shared_ptr<Exchange> x);
  void write(std::shared_ptr<Exchange> x);
  void read_whole(std::shared_ptr<Exchange> x);
  void read_header(std::shared_ptr<Exchange> x);
  void read_stream(std::shared_ptr<Exchange> x);
  void finish(const std::shared_ptr<Exchange>& x, Answer answer);
  void broken(const std::shared_ptr<Exchange>& x, const std::string& stage,
              const boost::system::error_code& ec);
  Tcp& socket();
  template <typename F>
  void with_stream(F&& f);

  boost::asio::io_context& io_;
  Endpoint endpoint_;
  std::shared_ptr<boost::asio::ssl::context> tls_;  // outlives the stream that uses it
  boost::asio::ip::tcp::resolver resolver_;
  boost::asio::steady_timer timer_;
  std::variant<Tcp, Tls> stream_;
  boost::beast::flat_buffer buffer_{kMaxBuffered};
  bool connected_ = false;
  bool closed_ = false;
  bool broken_ = false;  // by an error or the server's Connection: close
  std::shared_ptr<Exchange> current_;
};

}  // namespace vigil::etcd
