#include "testing/apisim/h2_session.h"

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "testing/apisim/objects.h"
#include "testing/apisim/routes.h"

namespace vigil::apisim {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using namespace std::chrono_literals;
using namespace asio::experimental::awaitable_operators;
using TlsStream = asio::ssl::stream<beast::tcp_stream>;

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
constexpr auto kIdleTimeout = 90s;  // no open stream this long: GOAWAY, as Go's server does
constexpr auto kWriteTimeout = 10s;
constexpr auto kGoAwayTimeout = 1s;  // a graceful end waits this long for the streams to end
constexpr std::uint32_t kMaxConcurrentStreams = 250;  // Go's http2 server default

struct SessionDeleter {
  void operator()(nghttp2_session* s) const { nghttp2_session_del(s); }
};
struct CallbacksDeleter {
  void operator()(nghttp2_session_callbacks* c) const { nghttp2_session_callbacks_del(c); }
};

// One request stream. A watch's body grows by an event per tick and ends at its deadline or at
// shutdown; every other body is complete when the request is answered.
struct H2Stream {
  std::string method;
  std::string path;
  std::string body;
  std::size_t sent = 0;
  WatchKind watch = WatchKind::kNone;
  std::size_t tick = 0;   // which node the next MODIFIED event names
  bool ended = false;     // no more body: the next read of it carries END_STREAM
  bool reset = false;     // RST_STREAM queued: nothing more to send
  TimePoint next_tick{};  // the next node event, or the next BOOKMARK of a slice watch
  TimePoint deadline = TimePoint::max();
  std::unique_ptr<SliceWatcher> slices;  // an EndpointSlice watch's registration

  bool watching() const { return watch != WatchKind::kNone && !ended && !reset; }
};

nghttp2_nv header(std::string_view name, std::string_view value) {
  return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(),
          value.size(), NGHTTP2_NV_FLAG_NONE};
}

class H2Connection {
 public:
  H2Connection(TlsStream& stream, Live& live, ServerContext& ctx)
      : stream_(stream),
        live_(live),
        ctx_(ctx),
        wake_writer_(stream.get_executor()),
        wake_ticker_(stream.get_executor()),
        idle_since_(ctx.clock.now()) {}

  // Returns false when libnghttp2 could not set the session up (out of memory).
  bool start() {
    nghttp2_session_callbacks* raw = nullptr;
    if (nghttp2_session_callbacks_new(&raw) != 0) return false;
    std::unique_ptr<nghttp2_session_callbacks, CallbacksDeleter> callbacks(raw);
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks.get(), on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(callbacks.get(), on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks.get(), on_frame_recv);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks.get(), on_stream_close);
    nghttp2_session* session = nullptr;
    if (nghttp2_session_server_new(&session, callbacks.get(), this) != 0) return false;
    session_.reset(session);
    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, kMaxConcurrentStreams}};
    return nghttp2_submit_settings(session_.get(), NGHTTP2_FLAG_NONE, settings,
                                   std::size(settings)) == 0;
  }

  asio::awaitable<void> run() {
    live_.finish = [this] { go_away(); };
    stream_.next_layer().expires_never();  // reads wait for the client; writes are bounded
    co_await (read_loop() && write_loop() && tick_loop());
    live_.finish = nullptr;
  }

 private:
  // Frames in: everything libnghttp2 does on receipt (PING answers, window updates, requests)
  // happens in mem_recv; what it queued goes out through the writer.
  asio::awaitable<void> read_loop() {
    std::array<std::uint8_t, 16 * 1024> buffer;
    while (!closing_) {
      auto [ec, n] = co_await stream_.async_read_some(asio::buffer(buffer), kTuple);
      if (ec || closing_) break;
      if (nghttp2_session_mem_recv(session_.get(), buffer.data(), n) < 0) break;  // GOAWAY queued
      wake(wake_writer_);
    }
    closing_ = true;
    wake(wake_writer_);
    wake(wake_ticker_);
  }

  // Frames out, batched. Ends the connection once the session has nothing left to say, or once
  // the GOAWAY that follows the last stream of a graceful end is out.
  asio::awaitable<void> write_loop() {
    std::string out;
    for (;;) {
      out.clear();
      for (;;) {
        const std::uint8_t* data = nullptr;
        const ssize_t n = nghttp2_session_mem_send(session_.get(), &data);
        if (n <= 0) break;
        out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
      }
      if (!out.empty()) {
        stream_.next_layer().expires_after(kWriteTimeout);
        auto [ec, n] = co_await asio::async_write(stream_, asio::buffer(out), kTuple);
        if (ec) break;
        continue;  // what was queued while writing
      }
      if (going_away_ && streams_.empty() && !goaway_sent_) {
        nghttp2_submit_goaway(session_.get(), NGHTTP2_FLAG_NONE,
                              nghttp2_session_get_last_proc_stream_id(session_.get()),
                              NGHTTP2_NO_ERROR, nullptr, 0);
        goaway_sent_ = true;
        continue;
      }
      const bool over =
          !nghttp2_session_want_read(session_.get()) && !nghttp2_session_want_write(session_.get());
      if (closing_ || over || goaway_sent_) break;
      wake_writer_.expires_at(asio::steady_timer::time_point::max());
      co_await wake_writer_.async_wait(kTuple);
    }
    closing_ = true;
    wake(wake_ticker_);
    beast::error_code ignored;
    stream_.next_layer().socket().cancel(ignored);  // the reader, if it still waits
  }

  // Watch events every watch interval, watch deadlines, and the idle timeout.
  asio::awaitable<void> tick_loop() {
    while (!closing_) {
      TimePoint next = streams_.empty() ? idle_since_ + kIdleTimeout : TimePoint::max();
      if (going_away_) next = std::min(next, going_away_at_ + kGoAwayTimeout);
      for (const auto& [id, s] : streams_) {
        if (s.watching()) next = std::min({next, s.next_tick, s.deadline});
      }
      wake_ticker_.expires_at(next);
      co_await wake_ticker_.async_wait(kTuple);
      if (closing_) break;
      const TimePoint now = ctx_.clock.now();
      for (auto& [id, s] : streams_) {
        if (!s.watching()) continue;
        if (s.watch == WatchKind::kEndpointSlices) {
          slice_tick(id, s, now);
        } else if (now >= s.deadline) {
          end_stream(id, s);
        } else if (now >= s.next_tick) {
          s.body += watch_modified(ctx_.state, s.tick++);
          s.next_tick = now + ctx_.state.watch_interval;
          nghttp2_session_resume_data(session_.get(), id);
        }
      }
      if (streams_.empty() && now >= idle_since_ + kIdleTimeout) go_away();
      if (going_away_ && now >= going_away_at_ + kGoAwayTimeout) closing_ = true;
      wake(wake_writer_);
    }
  }

  // An EndpointSlice watch's turn: a break resets the stream (as a crashed apiserver's would
  // end); else published events, then its deadline, then a BOOKMARK when one is due.
  void slice_tick(std::int32_t id, H2Stream& s, TimePoint now) {
    if (s.slices->broken()) {
      s.reset = true;
      nghttp2_submit_rst_stream(session_.get(), NGHTTP2_FLAG_NONE, id, NGHTTP2_INTERNAL_ERROR);
      return;
    }
    if (s.slices->has_pending()) s.body += s.slices->take_pending();
    if (now >= s.deadline) {
      s.ended = true;
    } else if (now >= s.next_tick) {
      s.body += endpoint_slice_bookmark(ctx_.state.resource_version);
      s.next_tick = now + ctx_.state.watch_interval;
    }
    nghttp2_session_resume_data(session_.get(), id);
  }

  // Graceful end, at the end of the shutdown delay or after an idle timeout: watches get their
  // END_STREAM, then a GOAWAY (NO_ERROR) and the close. The GOAWAY comes after the streams' last
  // frames, not before them as Go's server sends it, so that a strict client (the h2 library
  // closes its state machine at a GOAWAY) still sees each stream end. A client that does not
  // read its streams' ends gets the close after kGoAwayTimeout anyway.
  void go_away() {
    if (going_away_ || closing_) return;
    going_away_ = true;
    going_away_at_ = ctx_.clock.now();
    for (auto& [id, s] : streams_) {
      if (s.watching()) end_stream(id, s);
    }
    wake(wake_writer_);
    wake(wake_ticker_);
  }

  void end_stream(std::int32_t id, H2Stream& s) {
    s.ended = true;
    nghttp2_session_resume_data(session_.get(), id);
  }

  static void wake(asio::steady_timer& timer) { timer.cancel(); }

  void answer(std::int32_t id, H2Stream& s) {
    const Reply reply = ctx_.answer(s.method, s.path);
    const std::string status = std::to_string(reply.status);
    const std::string length = std::to_string(reply.body.size());
    std::vector<nghttp2_nv> headers = {
        header(":status", status),
        header("content-type", reply.content_type),
        header("cache-control", "no-cache, private"),
        header("x-content-type-options", "nosniff"),
        header("x-served-by", ctx_.state.name),
    };
    if (reply.watch == WatchKind::kNone) headers.push_back(header("content-length", length));
    nghttp2_data_provider provider{};
    provider.read_callback = read_body;
    if (reply.watch != WatchKind::kNone) {
      const TimePoint now = ctx_.clock.now();
      s.watch = reply.watch;
      s.next_tick = now + ctx_.state.watch_interval;
      if (reply.watch_timeout > Duration::zero()) s.deadline = now + reply.watch_timeout;
      if (reply.watch == WatchKind::kNodes) {
        s.body = watch_added(ctx_.state);
      } else {
        s.body = reply.slice_watch.first;
        s.ended = reply.slice_watch.ends;
        if (!reply.slice_watch.bookmarks) s.next_tick = TimePoint::max();
        if (!s.ended) {  // a 410 has nothing to follow it
          s.slices = std::make_unique<SliceWatcher>(
              ctx_.state.slice_watchers, reply.slice_watch.filter, [this] { wake(wake_ticker_); });
        }
      }
      if (ctx_.stopping || going_away_) s.ended = true;
      wake(wake_ticker_);
    } else {
      s.body = reply.body;
      s.ended = true;
    }
    const bool head = s.method == "HEAD";
    nghttp2_submit_response(session_.get(), id, headers.data(), headers.size(),
                            head ? nullptr : &provider);
  }

  static H2Connection& self(void* user_data) { return *static_cast<H2Connection*>(user_data); }

  static int on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
      self(user_data).streams_.try_emplace(frame->hd.stream_id);
    }
    return 0;
  }

  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                       std::size_t namelen, const std::uint8_t* value, std::size_t valuelen,
                       std::uint8_t, void* user_data) {
    auto& streams = self(user_data).streams_;
    auto it = streams.find(frame->hd.stream_id);
    if (it == streams.end()) return 0;
    const std::string_view key(reinterpret_cast<const char*>(name), namelen);
    const std::string_view text(reinterpret_cast<const char*>(value), valuelen);
    if (key == ":method") it->second.method = text;
    if (key == ":path") it->second.path = text;
    return 0;
  }

  // A request is answered once it is complete: END_STREAM on its HEADERS, or on its last DATA
  // (the /sim controls' POSTs may carry an empty body).
  static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
    auto& c = self(user_data);
    if ((frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) ||
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0) {
      return 0;
    }
    auto it = c.streams_.find(frame->hd.stream_id);
    if (it != c.streams_.end()) c.answer(it->first, it->second);
    return 0;
  }

  static int on_stream_close(nghttp2_session*, std::int32_t id, std::uint32_t, void* user_data) {
    auto& c = self(user_data);
    c.streams_.erase(id);
    if (c.streams_.empty()) {
      c.idle_since_ = c.ctx_.clock.now();
      wake(c.wake_ticker_);  // it now counts the idle timeout
    }
    return 0;
  }

  static ssize_t read_body(nghttp2_session*, std::int32_t id, std::uint8_t* buf, std::size_t length,
                           std::uint32_t* flags, nghttp2_data_source*, void* user_data) {
    auto& streams = self(user_data).streams_;
    auto it = streams.find(id);
    if (it == streams.end()) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    H2Stream& s = it->second;
    const std::size_t n = std::min(length, s.body.size() - s.sent);
    std::memcpy(buf, s.body.data() + s.sent, n);
    s.sent += n;
    if (s.sent == s.body.size()) {
      s.body.clear();
      s.sent = 0;
      if (s.ended) {
        *flags |= NGHTTP2_DATA_FLAG_EOF;
      } else if (n == 0) {
        return NGHTTP2_ERR_DEFERRED;  // until the next watch event (nghttp2_session_resume_data)
      }
    }
    return static_cast<ssize_t>(n);
  }

  TlsStream& stream_;
  Live& live_;
  ServerContext& ctx_;
  std::unique_ptr<nghttp2_session, SessionDeleter> session_;
  std::map<std::int32_t, H2Stream> streams_;
  asio::steady_timer wake_writer_;
  asio::steady_timer wake_ticker_;
  TimePoint idle_since_;
  TimePoint going_away_at_{};
  bool going_away_ = false;   // ending: no new watch, GOAWAY after the last stream
  bool goaway_sent_ = false;  // queued; the writer closes once it is out
  bool closing_ = false;      // the connection is over: every loop ends
};

}  // namespace

asio::awaitable<void> serve_h2(TlsStream& stream, Live& live, ServerContext& ctx) {
  H2Connection connection(stream, live, ctx);
  if (!connection.start()) co_return;
  co_await connection.run();
}

}  // namespace vigil::apisim
