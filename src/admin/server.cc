#include "admin/server.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <utility>

#include "admin/limits.h"
#include "admin/listen_address.h"
#include "admin/login_sessions.h"
#include "admin/octavia/random_id.h"
#include "admin/routes.h"
#include "admin/sign_in_throttle.h"
#include "admin/text.h"
#include "base/free_heap.h"
#include "base/log.h"
#include "net/unix_socket.h"

namespace vigil::admin {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using local = asio::local::stream_protocol;
// Both acceptors hand their connections over as generic sockets, so that one Session serves TCP
// and the Unix socket alike.
using Socket = asio::generic::stream_protocol::socket;
using Stream = beast::basic_stream<asio::generic::stream_protocol>;
using namespace std::chrono_literals;

namespace {

// The render thread's nice value, the control thread's being the process's (AdminServer()).
constexpr int kRenderNice = 10;

constexpr size_t kHeaderLimit = 16 * 1024;
constexpr size_t kBodyLimit = 1024 * 1024;
// After an error answer the rest of the request is read and dropped, so that closing the socket
// with unread data does not reset the connection before the client has read the answer.
constexpr size_t kDrainLimit = 4 * 1024 * 1024;
constexpr auto kDrainTime = 5s;
// Answers from this size up are freed off the control thread (Session::release_body()): what
// malloc maps on its own (kMappedFrom, base/free_heap.h), whose free is an munmap.
constexpr size_t kFreeElsewhereFrom = kMappedFrom;

bool is_http_error(const beast::error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_method).category();
}

}  // namespace

class Session;

struct ServerState {
  ServerState(asio::io_context& io, Options o, Daemon& d)
      : acceptor(io),
        unix_acceptor(io),
        retry(io),
        unix_retry(io),
        options(std::move(o)),
        daemon(d) {}

  struct Entry {
    std::weak_ptr<Session> session;
    std::string peer;  // what the per-address cap counts: an IP address, or "unix USER"
  };

  // Forgets session `id` (closed, evicted or destroyed); twice does nothing.
  void release(uint64_t id) {
    auto it = sessions.find(id);
    if (it == sessions.end()) return;
    auto count = per_address.find(it->second.peer);
    if (count != per_address.end() && --count->second == 0) per_address.erase(count);
    sessions.erase(it);
  }

  tcp::acceptor acceptor;
  local::acceptor unix_acceptor;  // admin.socket; closed when there is none
  asio::steady_timer retry;       // the acceptor's next try after a failed accept
  asio::steady_timer unix_retry;  // the same for unix_acceptor
  Options options;
  Daemon& daemon;
  RenderFn render;  // AdminServer's renderer
  DeferFn defer;    // a later turn of the control thread's loop
  // Frees a large answer's body on the render thread (Session::release_body()).
  std::function<void(std::string)> discard;
  uint64_t requests = 0;               // requests begun, ever: AdminServer::requests()
  std::map<uint64_t, Entry> sessions;  // by id: the oldest first
  std::map<std::string, size_t> per_address;
  uint64_t next_session = 0;
  LoginSessions logins;         // the status page's signed-in browsers
  SignInThrottle throttle;      // wrong tokens at /login, per source
  bool refusing = false;        // at a cap with nothing to evict; logged once per episode
  bool evicting = false;        // likewise
  bool accept_failing = false;  // likewise
};

// One admin connection: read a request, answer it, repeat while keep-alive holds. Owned by the
// pending Asio operation (shared_ptr), so it lives exactly as long as something is in flight.
class Session : public std::enable_shared_from_this<Session> {
 public:
  // `peer_user`: the Unix socket's peer from SO_PEERCRED; empty over TCP.
  Session(Socket socket, std::shared_ptr<ServerState> server, uint64_t id, std::string source,
          std::string peer_user)
      : stream_(std::move(socket)),
        server_(std::move(server)),
        id_(id),
        source_(std::move(source)),
        peer_user_(std::move(peer_user)) {}
  ~Session() { server_->release(id_); }

  void start() { read_head(); }

  void close() {
    server_->release(id_);
    beast::error_code ec;
    stream_.socket().shutdown(asio::socket_base::shutdown_both, ec);
    stream_.close();
  }

  // Idle, or its request not all read: nothing is lost but a retry if it is closed for a newer
  // connection. One being answered is left to finish.
  bool evictable() const { return !answering_; }

 private:
  void new_request() {
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    parser_->body_limit(kBodyLimit);
  }

  // Between keep-alive requests the connection may idle for idle_timeout; the head timeout
  // starts at the next request's first byte.
  void read_request() {
    answering_ = false;
    if (buffer_.size() > 0) return read_head();
    stream_.expires_after(server_->options.idle_timeout);
    stream_.async_read_some(buffer_.prepare(kHeaderLimit),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              self->buffer_.commit(n);
                              if (ec) return self->close();  // eof, idle timeout, stop()
                              self->read_head();
                            });
  }

  void read_head() {
    new_request();
    stream_.expires_after(std::min(server_->options.header_timeout, server_->options.idle_timeout));
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (ec) return self->on_read(ec);
                              self->on_head();
                            });
  }

  void on_head() {
    const auto& head = parser_->get();
    const auto te = head.equal_range(http::field::transfer_encoding);
    const auto count = static_cast<size_t>(std::distance(te.first, te.second));
    const std::string_view first = count > 0 ? std::string_view(te.first->value()) : "";
    if (auto why = framing_error(count, first, head.count(http::field::content_length) > 0)) {
      return reject(400, "malformed HTTP request: " + *why);
    }
    stream_.expires_after(server_->options.idle_timeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_read(ec); });
  }

  void on_read(const beast::error_code& ec) {
    if (ec == http::error::body_limit) return reject(413, "request body larger than 1 MiB");
    if (ec == http::error::header_limit) return reject(431, "request header larger than 16 KiB");
    if (ec == http::error::end_of_stream || ec == beast::error::timeout) return close();
    if (ec && is_http_error(ec)) return reject(400, "malformed HTTP request: " + ec.message());
    if (ec) return close();  // reset, aborted by stop(), ...
    answer();
  }

  void answer() {
    answering_ = true;
    ++server_->requests;
    const http::request<http::string_body>& req = parser_->get();
    const Request request{
        .method = req.method_string(),
        .target = req.target(),
        .x_auth_token = req["X-Auth-Token"],
        .authorization = req[http::field::authorization],
        .x_project_id = req["X-Project-Id"],
        .body = req.body(),
        .cookie = req[http::field::cookie],
        .host = req[http::field::host],
        .forwarded = req[http::field::forwarded],
        .x_forwarded_proto = req["X-Forwarded-Proto"],
        .x_forwarded_host = req["X-Forwarded-Host"],
        .x_forwarded_prefix = req["X-Forwarded-Prefix"],
        .accept = req[http::field::accept],
        .origin = req[http::field::origin],
        .sec_fetch_site = req["Sec-Fetch-Site"],
        .source = source_,
        .peer_user = peer_user_,
    };
    Response response;
    try {
      const Options& o = server_->options;
      response = route(request, RouteContext{.token = o.token,
                                             .read_token = o.read_token,
                                             .default_project = o.default_project,
                                             .public_endpoint = o.public_endpoint,
                                             .trust_forwarded = o.trust_forwarded_headers,
                                             .page_max_limit = o.page_max_limit,
                                             .daemon = server_->daemon,
                                             .now = std::chrono::system_clock::now(),
                                             .store = o.store,
                                             .shared = o.shared,
                                             .logins = &server_->logins,
                                             .throttle = &server_->throttle,
                                             .render = &server_->render,
                                             .defer = &server_->defer,
                                             .metrics = o.metrics});
    } catch (const std::exception& e) {
      log::error("admin API: {} {} failed: {}", std::string_view(request.method),
                 std::string_view(request.target), e.what());
      response = fault(500, "internal error; see vigil's log");
    }
    if (response.later) {
      auto later = std::move(response.later);
      later([self = shared_from_this(), keep_alive = req.keep_alive(), version = req.version()](
                Response r) { self->send(std::move(r), keep_alive, version, false); });
      return;
    }
    send(std::move(response), req.keep_alive(), req.version(), false);
  }

  // A written answer of megabytes (a status tree of thousands of members, a whole list) is
  // unmapped on the render thread: at 72 MB that is milliseconds that API writes waiting on the
  // control thread would otherwise wait too.
  void release_body() {
    std::string& body = response_.body();
    if (body.capacity() >= kFreeElsewhereFrom) server_->discard(std::move(body));
    body = {};
  }

  void reject(int status, std::string message) {
    answering_ = true;  // the error answer is not lost to an eviction
    log::debug("admin API: closing a connection: {}", message);
    send(fault(status, message), false, 11, true);
  }

  // The head every answer carries.
  template <class Body>
  static void set_head(http::response<Body>& m, const Response& r, bool keep_alive,
                       unsigned version) {
    m.version(version);
    m.result(static_cast<unsigned>(r.status));
    m.set(http::field::server, "vigil");
    m.set(http::field::content_type, r.content_type);
    // Octavia's (oslo's) request id on every answer, errors included: clients print it with
    // each error ("Request-ID: req-..."). A fresh one, as oslo makes it: nothing a client sent
    // is echoed into a header.
    m.set("x-openstack-request-id", "req-" + random_uuid());
    // Nothing vigil answers is meant to be framed or sniffed as another type.
    m.set("X-Content-Type-Options", "nosniff");
    m.set("X-Frame-Options", "DENY");
    for (const auto& [name, value] : r.headers) m.set(name, value);
    m.keep_alive(keep_alive);
  }

  void send(Response r, bool keep_alive, unsigned version, bool drain_after) {
    if (r.stream) return send_streamed(std::move(r), keep_alive, version);
    response_ = {};
    set_head(response_, r, keep_alive, version);
    response_.body() = std::move(r.body);
    response_.prepare_payload();
    stream_.expires_after(server_->options.idle_timeout);
    http::async_write(
        stream_, response_,
        [self = shared_from_this(), keep_alive, drain_after](beast::error_code ec, size_t) {
          self->release_body();
          if (ec) return self->close();
          if (drain_after) return self->drain_and_close();
          if (!keep_alive) return self->close();
          self->read_request();
        });
  }

  // A body made as it goes out: the head, then each piece as the render thread makes it, once
  // the last one is written, so that one piece at a time is held. Chunked; an HTTP/1.0 client,
  // which knows no chunks, gets the body up to the connection's close.
  void send_streamed(Response r, bool keep_alive, unsigned version) {
    const bool chunked = version >= 11;
    keep_alive_ = keep_alive && chunked;
    next_piece_ = std::make_shared<std::function<std::string()>>(std::move(r.stream));
    streamed_ = {};
    set_head(streamed_, r, keep_alive_, version);
    streamed_.chunked(chunked);
    streamed_.body().data = nullptr;
    streamed_.body().more = true;
    serializer_.emplace(streamed_);
    stream_.expires_after(server_->options.idle_timeout);
    http::async_write_header(stream_, *serializer_,
                             [self = shared_from_this(), first = std::move(r.body)](
                                 beast::error_code ec, size_t) mutable {
                               if (ec) return self->close();
                               if (first.empty()) return self->render_piece();
                               self->write_piece(std::move(first));
                             });
  }

  void render_piece() {
    server_->render(
        [next = next_piece_] {
          Response piece;
          piece.body = (*next)();
          return piece;
        },
        [self = shared_from_this()](Response piece) { self->write_piece(std::move(piece.body)); });
  }

  // An empty piece ends the body.
  void write_piece(std::string piece) {
    piece_ = std::move(piece);
    const bool last = piece_.empty();
    streamed_.body().data = last ? nullptr : piece_.data();
    streamed_.body().size = piece_.size();
    streamed_.body().more = !last;
    stream_.expires_after(server_->options.idle_timeout);
    http::async_write(stream_, *serializer_,
                      [self = shared_from_this(), last](beast::error_code ec, size_t) {
                        // need_buffer: the piece is written and the serializer wants the next.
                        if (ec == http::error::need_buffer) ec = {};
                        if (ec) return self->close();
                        if (!last) return self->render_piece();
                        self->serializer_.reset();
                        self->next_piece_.reset();
                        self->piece_ = {};
                        if (!self->keep_alive_) return self->close();
                        self->read_request();
                      });
  }

  void drain_and_close() {
    answering_ = false;  // answered: what is left to read is dropped anyway
    beast::error_code ec;
    stream_.socket().shutdown(asio::socket_base::shutdown_send, ec);
    stream_.expires_after(kDrainTime);
    drain();
  }

  void drain() {
    stream_.async_read_some(asio::buffer(drain_buffer_),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              self->drained_ += n;
                              if (ec || self->drained_ > kDrainLimit) return self->close();
                              self->drain();
                            });
  }

  Stream stream_;
  std::shared_ptr<ServerState> server_;
  const uint64_t id_;
  const std::string source_;     // sign_in_source of the peer, or "unix USER"
  const std::string peer_user_;  // over the Unix socket: who the kernel says the peer is
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
  // A streamed answer (send_streamed): its head and serializer, the piece being written, and
  // what makes the next.
  http::response<http::buffer_body> streamed_;
  std::optional<http::response_serializer<http::buffer_body>> serializer_;
  std::string piece_;
  std::shared_ptr<std::function<std::string()>> next_piece_;
  bool keep_alive_ = false;
  std::array<char, 16 * 1024> drain_buffer_{};
  size_t drained_ = 0;
  bool answering_ = false;  // from a complete request until its answer is written
};

namespace {

// Closes the oldest evictable session (of `peer` when given); false when there is none.
bool evict_oldest(ServerState& s, const std::string* peer) {
  for (const auto& [id, entry] : s.sessions) {
    if (peer != nullptr && entry.peer != *peer) continue;
    auto session = entry.session.lock();
    if (!session || !session->evictable()) continue;
    session->close();  // releases it: `entry` is gone
    return true;
  }
  return false;
}

// Makes room under both caps for a connection from `peer`; false when every candidate is being
// answered.
bool make_room(ServerState& s, const std::string& peer) {
  const Options& o = s.options;
  auto from_peer = [&] {
    auto it = s.per_address.find(peer);
    return it == s.per_address.end() ? size_t{0} : it->second;
  };
  bool evicted = false;
  while (from_peer() >= std::max<size_t>(o.max_connections_per_address, 1)) {
    if (!evict_oldest(s, &peer)) return false;
    evicted = true;
  }
  while (s.sessions.size() >= std::max<size_t>(o.max_connections, 1)) {
    if (!evict_oldest(s, nullptr)) return false;
    evicted = true;
  }
  if (evicted && !s.evicting) {
    log::warn(
        "admin API: at its connection limits ({} in all, {} per address): closing the oldest "
        "idle or unfinished connections for new ones",
        o.max_connections, o.max_connections_per_address);
  }
  s.evicting = evicted;
  return true;
}

// Who is at the other end of `socket`: the per-address cap's key, /login's throttle source and,
// over the Unix socket, the user the kernel names. Nothing when the peer is already gone.
struct Peer {
  std::string key;
  std::string source;
  std::string user;
};

std::optional<Peer> peer_of(Socket& socket, bool unix_socket) {
  if (unix_socket) {
    // Once per connection, not per request: the password database lookup (local files, or
    // sssd's cache) stays off the path of a keep-alive client's requests.
    auto user = net::peer_user(socket.native_handle());
    if (!user) return std::nullopt;
    return Peer{.key = "unix " + *user, .source = "unix " + *user, .user = *user};
  }
  beast::error_code ec;
  const auto remote = socket.remote_endpoint(ec);
  if (ec) return std::nullopt;
  const auto ip = ip_of(remote);
  if (!ip) return std::nullopt;
  return Peer{.key = ip->to_string(), .source = sign_in_source(*ip), .user = {}};
}

void admit(const std::shared_ptr<ServerState>& s, Socket socket, bool unix_socket) {
  beast::error_code ec;
  auto found = peer_of(socket, unix_socket);
  if (!found) return;  // already gone
  const std::string& peer = found->key;
  if (!make_room(*s, peer)) {
    if (!s->refusing) {
      log::warn(
          "admin API: {} connections open, all being answered; closing new ones until "
          "some end",
          s->sessions.size());
    }
    s->refusing = true;
    socket.close(ec);
    return;
  }
  s->refusing = false;
  const uint64_t id = s->next_session++;
  auto session = std::make_shared<Session>(std::move(socket), s, id, std::move(found->source),
                                           std::move(found->user));
  s->sessions.emplace(id, ServerState::Entry{.session = session, .peer = peer});
  ++s->per_address[peer];
  session->start();
}

// `acceptor` and `retry` are s->acceptor and s->retry, or the Unix socket's: `s` keeps them alive.
template <typename Acceptor>
void accept_next(const std::shared_ptr<ServerState>& s, Acceptor& acceptor,
                 asio::steady_timer& retry) {
  auto socket = std::make_shared<Socket>(acceptor.get_executor());
  acceptor.async_accept(*socket, [s, socket, &acceptor, &retry](beast::error_code ec) {
    if (!acceptor.is_open()) return;
    if (ec) {
      // Out of file descriptors and the like: try again shortly rather than spin; said once.
      if (!s->accept_failing) log::warn("admin API: accept failed: {}", ec.message());
      s->accept_failing = true;
      retry.expires_after(100ms);
      retry.async_wait([s, &acceptor, &retry](beast::error_code wait_ec) {
        if (!wait_ec) accept_next(s, acceptor, retry);
      });
      return;
    }
    if (s->accept_failing) log::info("admin API: accepting connections again");
    s->accept_failing = false;
    admit(s, std::move(*socket), std::is_same_v<Acceptor, local::acceptor>);
    accept_next(s, acceptor, retry);
  });
}

}  // namespace

AdminServer::AdminServer(asio::io_context& io, Options options, Daemon& daemon)
    : state_(std::make_shared<ServerState>(io, std::move(options), daemon)),
      renderer_(std::make_shared<asio::thread_pool>(1)) {
  // The render thread runs nothing but `render`: `send`, and the session it holds, are only
  // moved through it, so that nothing of the control thread is destroyed there.
  state_->defer = [&io](std::function<void()> f) { asio::post(io, std::move(f)); };
  // Below the control thread: on a machine with fewer cores than busy threads, a scrape being
  // rendered would otherwise take the core an API write, /healthz or a check result waits for
  // (at 10,000 load balancers, writes beside a whole list waited up to 30 ms for a core).
  asio::post(*renderer_, [] {
    if (::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), kRenderNice) != 0) {
      log::warn("admin API: cannot lower the render thread's priority: {}", std::strerror(errno));
    }
  });
  state_->render = [&io, renderer = std::weak_ptr<asio::thread_pool>(renderer_)](
                       std::function<Response()> render, std::function<void(Response)> send) {
    const auto pool = renderer.lock();
    if (!pool) return send(render());
    asio::post(*pool, [&io, render = std::move(render), send = std::move(send)]() mutable {
      asio::post(io, [send = std::move(send), r = render()]() mutable { send(std::move(r)); });
    });
  };
  state_->discard = [renderer = std::weak_ptr<asio::thread_pool>(renderer_)](std::string body) {
    const auto pool = renderer.lock();
    if (!pool) return;  // freed here, as the server stops
    asio::post(*pool, [body = std::move(body)] {});
  };
}

AdminServer::~AdminServer() { stop(); }

Result<void> AdminServer::start() {
  if (state_->acceptor.is_open()) return fail("the admin API is already listening on " + bound());
  // The Unix socket is owned from here on, whatever becomes of the TCP one.
  net::Fd unix_fd(std::exchange(state_->options.unix_fd, -1));
  if (auto started = start_tcp(); !started) return started;
  if (unix_fd.valid()) {
    beast::error_code ec;
    state_->unix_acceptor.assign(local(), unix_fd.get(), ec);
    if (ec) {
      stop();
      return fail(fmt::format("cannot serve on the admin socket: {}", ec.message()));
    }
    unix_fd.release();
    accept_next(state_, state_->unix_acceptor, state_->unix_retry);
  }
  return {};
}

Result<void> AdminServer::start_tcp() {
  auto endpoint = parse_listen(state_->options.listen);
  if (!endpoint) return std::unexpected(endpoint.error());
  tcp::acceptor& acceptor = state_->acceptor;
  beast::error_code ec;
  if (const int fd = std::exchange(state_->options.inherited_fd, -1); fd >= 0) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
    acceptor.assign(ss.ss_family == AF_INET6 ? tcp::v6() : tcp::v4(), fd, ec);
    if (ec) {
      ::close(fd);
      return fail(fmt::format("cannot serve on the inherited admin socket: {}", ec.message()));
    }
    log::debug("admin API listening on {} (inherited)", bound());
    accept_next(state_, acceptor, state_->retry);
    return {};
  }
  acceptor.open(endpoint->protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(*endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    beast::error_code ignored;
    acceptor.close(ignored);
    return fail(fmt::format("cannot listen on {}: {}", state_->options.listen, ec.message()));
  }
  log::debug("admin API listening on {}", bound());
  accept_next(state_, acceptor, state_->retry);
  return {};
}

std::string AdminServer::bound() const {
  beast::error_code ec;
  if (!state_->acceptor.is_open()) return "";
  const tcp::endpoint ep = state_->acceptor.local_endpoint(ec);
  if (ec) return "";
  return host_port(ep.address().to_string(), ep.port());
}

int AdminServer::listening_fd() const {
  return state_->acceptor.is_open() ? state_->acceptor.native_handle() : -1;
}

int AdminServer::unix_listening_fd() const {
  return state_->unix_acceptor.is_open() ? state_->unix_acceptor.native_handle() : -1;
}

void AdminServer::set_token(std::string token) {
  if (token != state_->options.token) state_->logins.clear();
  state_->options.token = std::move(token);
}

void AdminServer::set_default_project(std::string project) {
  state_->options.default_project = std::move(project);
}

void AdminServer::set_public_endpoint(std::string endpoint, bool trust_forwarded_headers) {
  state_->options.public_endpoint = std::move(endpoint);
  state_->options.trust_forwarded_headers = trust_forwarded_headers;
}

void AdminServer::set_page_max_limit(size_t limit) { state_->options.page_max_limit = limit; }
void AdminServer::set_metrics(model::AdminMetrics metrics) {
  state_->options.metrics = std::move(metrics);
}

void AdminServer::set_read_token(std::string token) {
  if (token != state_->options.read_token) state_->logins.clear();
  state_->options.read_token = std::move(token);
}

size_t AdminServer::connections() const { return state_->sessions.size(); }

uint64_t AdminServer::requests() const { return state_->requests; }

bool AdminServer::answering() const {
  for (const auto& [id, entry] : state_->sessions) {
    if (auto session = entry.session.lock(); session && !session->evictable()) return true;
  }
  return false;
}

void AdminServer::stop() {
  beast::error_code ec;
  state_->acceptor.close(ec);
  state_->unix_acceptor.close(ec);
  state_->retry.cancel();
  state_->unix_retry.cancel();
  // Copied first: a session may end, and leave the map, while others are being closed.
  const auto sessions = state_->sessions;
  for (const auto& [id, entry] : sessions) {
    if (auto session = entry.session.lock()) session->close();
  }
}

}  // namespace vigil::admin
