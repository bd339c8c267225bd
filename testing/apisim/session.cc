#include "testing/apisim/session.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "testing/apisim/h2_session.h"
#include "testing/apisim/objects.h"
#include "testing/apisim/routes.h"

namespace vigil::apisim {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using namespace std::chrono_literals;

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
constexpr auto kHandshakeTimeout = 10s;
constexpr auto kIdleTimeout = 90s;  // like Go's http.Server IdleTimeout in kube-apiserver
constexpr auto kWriteTimeout = 10s;
constexpr auto kCloseTimeout = 1s;
constexpr std::uint32_t kHeaderLimit = 16 * 1024;
constexpr std::uint64_t kBodyLimit = 64 * 1024;

using Request = http::request<http::string_body>;

// Keeps a session in the server's registry for exactly as long as its coroutine runs.
class Registration {
 public:
  Registration(ServerContext& ctx, Live& live) : ctx_(ctx), live_(live) {
    ctx_.live.insert(&live_);
  }
  ~Registration() { ctx_.live.erase(&live_); }
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;

 private:
  ServerContext& ctx_;
  Live& live_;
};

void add_common_headers(http::fields& fields, const SimState& state, std::string_view type) {
  fields.set(http::field::content_type, type);
  fields.set(http::field::cache_control, "no-cache, private");
  fields.set("X-Content-Type-Options", "nosniff");
  fields.set("X-Served-By", state.name);
}

http::response<http::string_body> make_response(const Reply& reply, const Request& request,
                                                const SimState& state) {
  http::response<http::string_body> res{static_cast<http::status>(reply.status), request.version()};
  add_common_headers(res, state, reply.content_type);
  res.keep_alive(request.keep_alive());
  res.body() = reply.body;
  res.prepare_payload();
  return res;
}

// Beast's parse errors (as opposed to end of stream, timeouts, resets) earn a 400 before closing.
bool is_parse_error(beast::error_code ec) {
  return ec.category() == http::make_error_code(http::error::bad_method).category() &&
         ec != http::error::end_of_stream && ec != http::error::partial_message;
}

template <typename Stream>
asio::awaitable<bool> send_event(Stream& stream, Live& live, const std::string& data,
                                 bool chunked) {
  live.stream->expires_after(kWriteTimeout);
  beast::error_code ec;
  if (chunked) {
    std::tie(ec, std::ignore) =
        co_await asio::async_write(stream, http::make_chunk(asio::buffer(data)), kTuple);
  } else {
    std::tie(ec, std::ignore) = co_await asio::async_write(stream, asio::buffer(data), kTuple);
  }
  co_return !ec;
}

// A node watch: ADDED per node, then MODIFIED every watch_interval until the client goes away,
// ?timeoutSeconds passes, or shutdown. HTTP/1.0 clients get an unchunked body ended by close.
// Returns whether the connection can carry another request.
template <typename Stream>
asio::awaitable<bool> stream_watch(Stream& stream, Live& live, ServerContext& ctx,
                                   const Request& request, const Reply& reply) {
  const bool chunked = request.version() >= 11;
  http::response<http::empty_body> res{http::status::ok, request.version()};
  add_common_headers(res, ctx.state, reply.content_type);
  res.keep_alive(chunked && request.keep_alive());
  if (chunked) res.chunked(true);
  http::response_serializer<http::empty_body> serializer{res};
  live.stream->expires_after(kWriteTimeout);
  if (auto [ec, n] = co_await http::async_write_header(stream, serializer, kTuple); ec) {
    co_return false;
  }
  if (!co_await send_event(stream, live, watch_added(ctx.state), chunked)) co_return false;

  live.watching = true;
  const TimePoint start = ctx.clock.now();
  const TimePoint deadline =
      reply.watch_timeout > Duration::zero() ? start + reply.watch_timeout : TimePoint::max();
  for (std::size_t tick = 0; !ctx.stopping; ++tick) {
    live.stream->expires_never();
    live.watch_timer->expires_at(std::min(ctx.clock.now() + ctx.state.watch_interval, deadline));
    co_await live.watch_timer->async_wait(kTuple);
    if (ctx.stopping || ctx.clock.now() >= deadline) break;
    if (!co_await send_event(stream, live, watch_modified(ctx.state, tick), chunked)) {
      co_return false;
    }
  }
  live.watching = false;
  if (!chunked) co_return false;
  live.stream->expires_after(kCloseTimeout);
  auto [ec, n] = co_await asio::async_write(stream, http::make_chunk_last(), kTuple);
  co_return !ec && !ctx.stopping && res.keep_alive();
}

// An EndpointSlice watch: reply's opening lines, then each change as it is published, a BOOKMARK
// every watch interval if asked for, until ?timeoutSeconds, shutdown or the client ends it. A
// watch broken by /sim/endpoints/break closes the connection, without the last chunk, as a
// crashed apiserver's would end. Returns whether the connection can carry another request.
template <typename Stream>
asio::awaitable<bool> stream_slice_watch(Stream& stream, Live& live, ServerContext& ctx,
                                         const Request& request, const Reply& reply) {
  const bool chunked = request.version() >= 11;
  http::response<http::empty_body> res{http::status::ok, request.version()};
  add_common_headers(res, ctx.state, reply.content_type);
  res.keep_alive(chunked && request.keep_alive());
  if (chunked) res.chunked(true);
  http::response_serializer<http::empty_body> serializer{res};
  live.stream->expires_after(kWriteTimeout);
  if (auto [ec, n] = co_await http::async_write_header(stream, serializer, kTuple); ec) {
    co_return false;
  }
  const SliceWatch& spec = reply.slice_watch;
  std::optional<SliceWatcher> watcher;  // none for a 410, which nothing follows
  if (!spec.ends) {
    watcher.emplace(ctx.state.slice_watchers, spec.filter, [&live] { live.watch_timer->cancel(); });
  }
  const TimePoint start = ctx.clock.now();
  const TimePoint deadline =
      reply.watch_timeout > Duration::zero() ? start + reply.watch_timeout : TimePoint::max();
  TimePoint next_bookmark = spec.bookmarks ? start + ctx.state.watch_interval : TimePoint::max();
  std::string out = spec.first;
  live.watching = true;
  for (;;) {
    if (!out.empty() && !co_await send_event(stream, live, out, chunked)) co_return false;
    out.clear();
    if (watcher && watcher->broken()) co_return false;
    const TimePoint now = ctx.clock.now();
    if (spec.ends || ctx.stopping || now >= deadline) break;
    if (watcher->has_pending()) {
      out = watcher->take_pending();
    } else if (now >= next_bookmark) {
      out = endpoint_slice_bookmark(ctx.state.resource_version);
      next_bookmark = now + ctx.state.watch_interval;
    } else {
      live.stream->expires_never();
      live.watch_timer->expires_at(std::min(next_bookmark, deadline));
      co_await live.watch_timer->async_wait(kTuple);
    }
  }
  live.watching = false;
  if (!chunked) co_return false;
  live.stream->expires_after(kCloseTimeout);
  auto [ec, n] = co_await asio::async_write(stream, http::make_chunk_last(), kTuple);
  co_return !ec && !ctx.stopping && res.keep_alive();
}

// Reads requests and answers them in order until the client or the server ends the connection.
template <typename Stream>
asio::awaitable<void> serve_requests(Stream& stream, Live& live, ServerContext& ctx) {
  beast::flat_buffer buffer;
  while (!ctx.stopping) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(kHeaderLimit);
    parser.body_limit(kBodyLimit);
    live.stream->expires_after(kIdleTimeout);
    auto [read_ec, read_n] = co_await http::async_read(stream, buffer, parser, kTuple);
    if (read_ec) {
      if (is_parse_error(read_ec) && !ctx.stopping) {
        http::response<http::string_body> bad{http::status::bad_request, 11};
        bad.set(http::field::content_type, "text/plain; charset=utf-8");
        bad.keep_alive(false);
        bad.body() = "400 Bad Request";
        bad.prepare_payload();
        live.stream->expires_after(kCloseTimeout);
        co_await http::async_write(stream, bad, kTuple);
      }
      co_return;
    }
    const Request& request = parser.get();
    const Reply reply = ctx.answer(request.method_string(), request.target());
    if (reply.watch == WatchKind::kNodes) {
      if (!co_await stream_watch(stream, live, ctx, request, reply)) co_return;
      continue;
    }
    if (reply.watch == WatchKind::kEndpointSlices) {
      if (!co_await stream_slice_watch(stream, live, ctx, request, reply)) co_return;
      continue;
    }
    auto res = make_response(reply, request, ctx.state);
    live.stream->expires_after(kWriteTimeout);
    beast::error_code ec;
    if (request.method() == http::verb::head) {
      http::response_serializer<http::string_body> serializer{res};
      std::tie(ec, std::ignore) = co_await http::async_write_header(stream, serializer, kTuple);
    } else {
      std::tie(ec, std::ignore) = co_await http::async_write(stream, res, kTuple);
    }
    if (ec || !res.keep_alive()) co_return;
  }
}

bool negotiated_h2(SSL* ssl) {
  const unsigned char* protocol = nullptr;
  unsigned int length = 0;
  SSL_get0_alpn_selected(ssl, &protocol, &length);
  return std::string_view(reinterpret_cast<const char*>(protocol), length) == "h2";
}

}  // namespace

std::size_t ServerContext::close_all() {
  stopping = true;
  const std::vector<Live*> sessions(live.begin(), live.end());
  for (Live* session : sessions) {
    if (session->finish) {
      session->finish();
    } else if (session->watching) {
      session->watch_timer->cancel();  // the watch sends its last chunk, then closes
    } else {
      session->stream->close();
    }
  }
  return sessions.size();
}

Reply ServerContext::answer(std::string_view method, std::string_view target) {
  Reply reply = route(state, {method, target}, clock.now());
  if (!reply.slice_events.empty()) state.slice_watchers.publish(reply.slice_events);
  if (reply.break_slice_watches) state.slice_watchers.break_all();
  return reply;
}

asio::awaitable<void> serve_plain(asio::ip::tcp::socket socket, ServerContext& ctx) {
  beast::tcp_stream stream(std::move(socket));
  asio::steady_timer timer(stream.get_executor());
  Live live{&stream, &timer};
  Registration registration(ctx, live);
  co_await serve_requests(stream, live, ctx);
  beast::error_code ignored;
  stream.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
}

asio::awaitable<void> serve_tls(asio::ip::tcp::socket socket, asio::ssl::context& tls,
                                ServerContext& ctx) {
  asio::ssl::stream<beast::tcp_stream> stream(beast::tcp_stream(std::move(socket)), tls);
  asio::steady_timer timer(stream.get_executor());
  Live live{&stream.next_layer(), &timer};
  Registration registration(ctx, live);
  stream.next_layer().expires_after(kHandshakeTimeout);
  if (auto [ec] = co_await stream.async_handshake(asio::ssl::stream_base::server, kTuple); ec) {
    co_return;
  }
  if (negotiated_h2(stream.native_handle())) {
    co_await serve_h2(stream, live, ctx);
  } else {
    co_await serve_requests(stream, live, ctx);
  }
  // close_notify, bounded: a client that never answers it must not hold the session.
  stream.next_layer().expires_after(kCloseTimeout);
  co_await stream.async_shutdown(kTuple);
}

}  // namespace vigil::apisim
