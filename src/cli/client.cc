#include "cli/client.h"

#include <fmt/format.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <cctype>
#include <cerrno>
#include <optional>
#include <vector>

#include "base/ascii.h"
#include "net/unix_socket.h"

namespace vigil::cli {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using local = asio::local::stream_protocol;
// TCP or the Unix socket, by the URL: one stream type serves both.
using Stream = beast::basic_stream<asio::generic::stream_protocol>;
using Endpoints = std::vector<asio::generic::stream_protocol::endpoint>;

namespace {

// The resolver's answers as the generic socket connects to them, in their order.
Endpoints generic_endpoints(const tcp::resolver::results_type& results) {
  Endpoints out;
  for (const auto& entry : results) out.emplace_back(entry.endpoint());
  return out;
}

// The errno behind an Asio error (ECONNREFUSED: nothing listens), 0 for other kinds.
int system_errno(const beast::error_code& error) {
  return error.category() == boost::system::system_category() ? error.value() : 0;
}

std::string host_header(const AdminUrl& url) {
  if (!url.socket.empty()) return "localhost";
  if (url.host.find(':') != std::string::npos) return fmt::format("[{}]:{}", url.host, url.port);
  return url.host + ":" + url.port;
}

}  // namespace

Result<AdminUrl> parse_admin_url(std::string_view text) {
  const std::string original(text);
  if (text.starts_with("unix:")) {
    const std::string_view path = text.substr(5);
    if (auto ok = net::check_socket_path(path); !ok) {
      return fail("admin URL " + original + ": the socket's path " + ok.error().message +
                  " (like unix:/run/vigil/admin.sock)");
    }
    return AdminUrl{.socket = std::string(path)};
  }
  if (istarts_with(text, "https://")) {
    return fail("admin URL " + original + ": vigil's admin API speaks plain HTTP; use http://");
  }
  if (istarts_with(text, "http://")) {
    text.remove_prefix(7);
  } else if (text.find("://") != std::string_view::npos) {
    return fail("admin URL " + original + ": only http:// is supported");
  }
  const size_t slash = text.find('/');
  std::string_view authority = text.substr(0, slash);
  AdminUrl url;
  if (slash != std::string_view::npos) url.prefix = text.substr(slash);
  while (!url.prefix.empty() && url.prefix.back() == '/') url.prefix.pop_back();
  std::string_view port;
  if (authority.starts_with('[')) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return fail("admin URL " + original + ": missing ']'");
    url.host = authority.substr(1, close - 1);
    if (authority.substr(close + 1).starts_with(':')) port = authority.substr(close + 2);
  } else {
    const size_t colon = authority.rfind(':');
    url.host = authority.substr(0, colon);
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  url.port = port.empty() ? "80" : std::string(port);
  if (url.host.empty()) return fail("admin URL " + original + ": no host");
  for (char c : url.port) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      return fail("admin URL " + original + ": bad port");
    }
  }
  return url;
}

std::string default_admin_url(std::string_view listen, std::string_view socket, bool may_connect) {
  if (!socket.empty() && may_connect) return "unix:" + std::string(socket);
  if (!listen.empty()) return "http://" + std::string(listen);
  return "http://127.0.0.1:8404";
}

namespace {

Result<HttpReply> exchange(const AdminUrl& url, http::verb verb, std::string_view path,
                           std::string_view token, std::string_view json_body,
                           std::chrono::milliseconds timeout) {
  asio::io_context io;
  tcp::resolver resolver(io);
  Stream stream(io);
  http::request<http::string_body> request{verb, url.prefix + std::string(path), 11};
  if (verb != http::verb::get) {
    request.set(http::field::content_type, "application/json");
    request.body() = std::string(json_body);
    request.prepare_payload();
  }
  request.set(http::field::host, host_header(url));
  request.set(http::field::user_agent, "vigil-cli");
  request.set(http::field::accept, "application/json");
  if (!token.empty()) request.set("X-Auth-Token", token);
  request.keep_alive(false);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);

  bool done = false;
  beast::error_code error;
  auto finish = [&](beast::error_code ec) {
    error = ec;
    done = true;
  };
  auto talk = [&](beast::error_code connected) {
    if (connected) return finish(connected);
    http::async_write(stream, request, [&](beast::error_code ec3, size_t) {
      if (ec3) return finish(ec3);
      http::async_read(stream, buffer, parser, [&](beast::error_code ec4, size_t) { finish(ec4); });
    });
  };
  Endpoints endpoints;
  if (!url.socket.empty()) {
    stream.async_connect(local::endpoint(url.socket), talk);
  } else {
    resolver.async_resolve(
        url.host, url.port, [&](beast::error_code ec, tcp::resolver::results_type results) {
          if (ec) return finish(ec);
          endpoints = generic_endpoints(results);
          stream.async_connect(endpoints, [&](beast::error_code ec2, const auto&) { talk(ec2); });
        });
  }
  io.run_for(timeout);
  if (!done) {
    // Let the cancelled operations finish here, while what they refer to still exists.
    resolver.cancel();
    beast::error_code ignored;
    stream.socket().close(ignored);
    io.restart();
    io.run();
    return std::unexpected(
        Error{fmt::format("no answer within {}s", timeout.count() / 1000.0), ETIMEDOUT});
  }
  if (error) return std::unexpected(Error{error.message(), system_errno(error)});
  return HttpReply{.status = static_cast<int>(parser.get().result_int()),
                   .body = std::move(parser.get().body())};
}

}  // namespace

Result<HttpReply> http_get(const AdminUrl& url, std::string_view path, std::string_view token,
                           std::chrono::milliseconds timeout) {
  return exchange(url, http::verb::get, path, token, {}, timeout);
}

Result<HttpReply> http_put(const AdminUrl& url, std::string_view path, std::string_view token,
                           std::string_view json_body, std::chrono::milliseconds timeout) {
  return exchange(url, http::verb::put, path, token, json_body, timeout);
}

Result<HttpReply> http_post(const AdminUrl& url, std::string_view path, std::string_view token,
                            std::string_view json_body, std::chrono::milliseconds timeout) {
  return exchange(url, http::verb::post, path, token, json_body, timeout);
}

HoldEnd hold_connection(const AdminUrl& url, std::chrono::milliseconds limit) {
  asio::io_context io;
  tcp::resolver resolver(io);
  asio::generic::stream_protocol::socket socket(io);
  char byte = 0;
  std::optional<HoldEnd> end;
  auto hold = [&](beast::error_code connected) {
    if (connected) {
      // A Unix socket's file with nothing listening answers ECONNREFUSED as a closed port does.
      end = system_errno(connected) == ECONNREFUSED ? HoldEnd::kRefused : HoldEnd::kClosed;
      return;
    }
    // The daemon sends nothing unasked: any byte, the end of the stream or an error means the
    // connection is over.
    socket.async_read_some(asio::buffer(&byte, 1),
                           [&](beast::error_code, size_t) { end = HoldEnd::kClosed; });
  };
  Endpoints endpoints;
  if (!url.socket.empty()) {
    socket.async_connect(local::endpoint(url.socket), hold);
  } else {
    resolver.async_resolve(
        url.host, url.port, [&](beast::error_code ec, tcp::resolver::results_type results) {
          if (ec) return void(end = HoldEnd::kClosed);
          endpoints = generic_endpoints(results);
          asio::async_connect(socket, endpoints,
                              [&](beast::error_code ec2, const auto&) { hold(ec2); });
        });
  }
  io.run_for(limit);
  if (end) return *end;
  resolver.cancel();
  beast::error_code ignored;
  socket.close(ignored);
  io.restart();
  io.run();
  return HoldEnd::kQuiet;
}

}  // namespace vigil::cli
