// The simulator's process: listener, TLS context, signals and the kube-apiserver style graceful
// shutdown, all on one io_context thread.
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <csignal>
#include <cstdio>
#include <exception>
#include <fstream>
#include <optional>

#include "base/duration.h"
#include "base/log.h"
#include "testing/apisim/cert.h"
#include "testing/apisim/options.h"
#include "testing/apisim/session.h"

namespace vigil::apisim {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
using ErrorCode = boost::system::error_code;

std::string format_endpoint(const tcp::endpoint& endpoint) {
  if (endpoint.address().is_v6()) {
    return fmt::format("[{}]:{}", endpoint.address().to_string(), endpoint.port());
  }
  return fmt::format("{}:{}", endpoint.address().to_string(), endpoint.port());
}

// Written to a temporary file and renamed, so a reader never sees half an address.
Result<void> write_ready_file(const std::string& path, const std::string& address) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << address << '\n';
    out.close();
    if (!out) return fail("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return fail("cannot rename " + tmp + " to " + path);
  }
  return {};
}

void log_exception(const std::exception_ptr& error) {
  if (!error) return;
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    log::error("apisim: session failed: {}", e.what());
  }
}

// A half-dead master's answer to a new connection: an RST (SO_LINGER 0, then close), either at
// once or after reading what the client sent first.
asio::awaitable<void> reset_connection(tcp::socket socket, ConnectionFault fault) {
  ErrorCode ec;
  if (fault == ConnectionFault::kReadThenReset) {
    asio::steady_timer limit(socket.get_executor());
    limit.expires_after(10s);  // a client that sends nothing is reset after this
    limit.async_wait([&socket](ErrorCode e) {
      if (!e) socket.cancel();
    });
    std::array<char, 4096> first;
    co_await socket.async_read_some(asio::buffer(first), kTuple);
    limit.cancel();
  }
  socket.set_option(asio::socket_base::linger(true, 0), ec);
  socket.close(ec);
}

asio::awaitable<void> accept_loop(tcp::acceptor& acceptor, asio::ssl::context* tls,
                                  ServerContext& ctx) {
  auto executor = co_await asio::this_coro::executor;
  asio::steady_timer backoff(executor);
  while (!ctx.stopping) {
    auto [ec, socket] = co_await acceptor.async_accept(kTuple);
    if (ec) {
      if (ctx.stopping || ec == asio::error::operation_aborted) co_return;
      // Out of descriptors and the like: wait a little instead of spinning.
      log::warn("apisim: accept: {}", ec.message());
      backoff.expires_after(50ms);
      co_await backoff.async_wait(kTuple);
      continue;
    }
    if (ctx.state.fault != ConnectionFault::kNone) {
      asio::co_spawn(executor, reset_connection(std::move(socket), ctx.state.fault), log_exception);
      continue;
    }
    socket.set_option(tcp::no_delay(true), ec);
    if (tls != nullptr) {
      asio::co_spawn(executor, serve_tls(std::move(socket), *tls, ctx), log_exception);
    } else {
      asio::co_spawn(executor, serve_plain(std::move(socket), ctx), log_exception);
    }
  }
}

class Server {
 public:
  Server(asio::io_context& ioc, const Options& options, ServerContext& ctx, asio::ssl::context* tls)
      : ioc_(ioc),
        options_(options),
        ctx_(ctx),
        tls_(tls),
        acceptor_(ioc),
        signals_(ioc, SIGTERM, SIGINT),
        warmup_timer_(ioc),
        shutdown_timer_(ioc) {}

  Result<void> listen() {
    ErrorCode ec;
    const auto address = asio::ip::make_address(options_.host, ec);
    if (ec) return fail("invalid listen address \"" + options_.host + "\"");
    const tcp::endpoint endpoint(address, options_.port);
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
      return fail(fmt::format("cannot listen on {}: {}", format_endpoint(endpoint), ec.message()));
    ctx_.state.address = format_endpoint(acceptor_.local_endpoint());
    auto endpoints = options_.endpoints ? Result<std::vector<Endpoint>>(*options_.endpoints)
                                        : parse_endpoints(ctx_.state.address);
    if (!endpoints) return fail("cannot publish the listen address: " + endpoints.error().message);
    ctx_.state.endpoint_slices = EndpointSlices(std::move(*endpoints), ctx_.state.resource_version);
    return {};
  }

  Result<void> start() {
    asio::co_spawn(ioc_, accept_loop(acceptor_, tls_, ctx_), log_exception);
    wait_signal();
    if (options_.warmup > Duration::zero()) {
      warmup_timer_.expires_at(ctx_.state.warmup_until);
      warmup_timer_.async_wait([this](ErrorCode ec) {
        if (!ec) log::info("apisim {}: warmup over, /readyz ok", ctx_.state.name);
      });
    }
    log::info("apisim {} listening on {} ({})", ctx_.state.name, ctx_.state.address,
              tls_ != nullptr ? "https" : "http");
    if (!options_.ready_file.empty())
      return write_ready_file(options_.ready_file, ctx_.state.address);
    return {};
  }

 private:
  void wait_signal() {
    signals_.async_wait([this](ErrorCode ec, int signal) {
      if (ec) return;
      if (signal == SIGINT) {
        log::info("apisim {}: SIGINT, exiting now", ctx_.state.name);
        ioc_.stop();
        return;
      }
      if (!ctx_.state.shutting_down) begin_shutdown();
      wait_signal();
    });
  }

  // Like kube-apiserver's --shutdown-delay-duration: readyz fails at once so load balancers take
  // the server out, while every request is still served until the delay ends.
  void begin_shutdown() {
    ctx_.state.shutting_down = true;
    log::info("apisim {}: SIGTERM, /readyz fails now, closing the listener in {}", ctx_.state.name,
              format_duration(options_.shutdown_delay));
    shutdown_timer_.expires_after(options_.shutdown_delay);
    shutdown_timer_.async_wait([this](ErrorCode ec) {
      if (!ec) finish_shutdown();
    });
  }

  void finish_shutdown() {
    ErrorCode ignored;
    acceptor_.close(ignored);
    warmup_timer_.cancel();
    signals_.cancel();
    const std::size_t open = ctx_.close_all();
    log::info("apisim {}: shutdown, listener closed, closing {} connection(s)", ctx_.state.name,
              open);
  }

  asio::io_context& ioc_;
  const Options& options_;
  ServerContext& ctx_;
  asio::ssl::context* tls_;
  tcp::acceptor acceptor_;
  asio::signal_set signals_;
  asio::steady_timer warmup_timer_;
  asio::steady_timer shutdown_timer_;
};

}  // namespace

int run(const Options& options) {
  // Declared before the io_context: session coroutines still refer to these while the
  // io_context destroys them.
  SteadyClock clock;
  SimState state;
  state.name = options.name;
  state.warmup_until = clock.now() + options.warmup;
  state.watch_interval = options.watch_interval;
  state.failing.insert(options.fail_readyz.begin(), options.fail_readyz.end());

  std::optional<asio::ssl::context> tls;
  if (!options.plain) {
    tls.emplace(asio::ssl::context::tls_server);
    auto ok =
        configure_tls(tls->native_handle(), options.name, options.cert_file, options.key_file);
    if (!ok) {
      log::error("apisim: {}", ok.error().message);
      return 1;
    }
  }
  ServerContext ctx{state, clock};

  asio::io_context ioc(1);
  Server server(ioc, options, ctx, tls ? &*tls : nullptr);
  if (auto ok = server.listen(); !ok) {
    log::error("apisim: {}", ok.error().message);
    return 1;
  }
  if (auto ok = server.start(); !ok) {
    log::error("apisim: {}", ok.error().message);
    return 1;
  }
  ioc.run();
  log::info("apisim {}: exiting", state.name);
  return 0;
}

}  // namespace vigil::apisim
