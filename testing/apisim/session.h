// HTTP sessions of the simulator, one coroutine per connection, plus the registry the server uses
// to close them at the end of a graceful shutdown. Everything runs on one io_context thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <functional>
#include <unordered_set>

#include "base/clock.h"
#include "testing/apisim/routes.h"
#include "testing/apisim/state.h"

namespace vigil::apisim {

// One open connection's handles, owned by its session coroutine.
struct Live {
  boost::beast::tcp_stream* stream;
  boost::asio::steady_timer* watch_timer;
  bool watching = false;
  // Set by an HTTP/2 session: ends its watch streams and sends GOAWAY (it has several streams
  // and one connection, so neither the timer nor a close fits).
  std::function<void()> finish;
};

struct ServerContext {
  SimState& state;
  const Clock& clock;
  std::unordered_set<Live*> live;
  bool stopping = false;  // set by close_all: sessions finish instead of reading more

  // Ends every session: a watch gets its last chunk, any other HTTP/1.1 connection is closed,
  // an HTTP/2 one ends its streams and says GOAWAY.
  // Returns how many connections were open.
  std::size_t close_all();

  // Routes a request, then carries out what it does to the open EndpointSlice watches (its
  // events reach them, or they break). Every session answers through this.
  Reply answer(std::string_view method, std::string_view target);
};

boost::asio::awaitable<void> serve_plain(boost::asio::ip::tcp::socket socket, ServerContext& ctx);
boost::asio::awaitable<void> serve_tls(boost::asio::ip::tcp::socket socket,
                                       boost::asio::ssl::context& tls, ServerContext& ctx);

}  // namespace vigil::apisim
