#include "cli/client.h"

#include <fmt/format.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <cctype>
#include <cerrno>
#include <optional>

#include "base/ascii.h"

namespace vigil::cli {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

// The errno behind an Asio error (ECONNREFUSED: nothing listens), 0 for other kinds.
int system_errno(const beast::error_code& error) {
  return error.category() == boost::system::system_category() ? error.value() : 0;
}

std::string host_header(const AdminUrl& url) {
  if (url.host.find(':') != std::string::npos) return fmt::format("[{}]:{}", url.host, url.port);
  return url.host + ":" + url.port;
}

}  // namespace

Result<AdminUrl> parse_admin_url(std::string_view text) {
  const std::string original(text);
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

namespace {

Result<HttpReply> exchange(const AdminUrl& url, http::verb verb, std::string_view path,
                           std::string_view token, std::string_view json_body,
                           std::chrono::milliseconds timeout) {
  asio::io_context io;
  tcp::resolver resolver(io);
  beast::tcp_stream stream(io);
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
  resolver.async_resolve(
      url.host, url.port, [&](beast::error_code ec, tcp::resolver::results_type results) {
        if (ec) return finish(ec);
        stream.async_connect(results, [&](beast::error_code ec2, const tcp::endpoint&) {
          if (ec2) return finish(ec2);
          http::async_write(stream, request, [&](beast::error_code ec3, size_t) {
            if (ec3) return finish(ec3);
            http::async_read(stream, buffer, parser,
                             [&](beast::error_code ec4, size_t) { finish(ec4); });
          });
        });
      });
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
  tcp::socket socket(io);
  char byte = 0;
  std::optional<HoldEnd> end;
  resolver.async_resolve(
      url.host, url.port, [&](beast::error_code ec, tcp::resolver::results_type results) {
        if (ec) return void(end = HoldEnd::kClosed);
        asio::async_connect(socket, results, [&](beast::error_code ec2, const tcp::endpoint&) {
          if (ec2) {
            end = system_errno(ec2) == ECONNREFUSED ? HoldEnd::kRefused : HoldEnd::kClosed;
            return;
          }
          // The daemon sends nothing unasked: any byte, the end of the stream or an error means
          // the connection is over.
          socket.async_read_some(asio::buffer(&byte, 1),
                                 [&](beast::error_code, size_t) { end = HoldEnd::kClosed; });
        });
      });
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
