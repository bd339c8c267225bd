#include "health/tls_socket.h"

#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>
#include <csignal>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "health/test_tls_server.h"
#include "testing/run_until.h"

namespace vigil::health {
namespace {

namespace asio = boost::asio;
using boost::system::error_code;
using testing::Behaviour;
using testing::TestServer;
using testing::TlsVersion;

class TlsSocketTest : public ::testing::TestWithParam<TlsVersion> {
 protected:
  TlsSocketTest() {
    // A write to a member that has gone must fail, not kill the process: with SIGPIPE at its
    // default a write(2) to the closed socket ends this test.
    std::signal(SIGPIPE, SIG_DFL);
    context_.set_verify_mode(asio::ssl::verify_none);
  }

  // Connects and shakes hands with server_; the handshake's result.
  error_code connect_and_handshake() {
    error_code connected = asio::error::would_block;
    socket_.next_layer().async_connect({asio::ip::make_address("127.0.0.1"), server_.port()},
                                       [&](const error_code& ec) { connected = ec; });
    vigil::testing::run_until(io_, [&] { return connected != asio::error::would_block; });
    if (connected) return connected;
    std::optional<error_code> shaken;
    socket_.async_handshake([&](const error_code& ec) { shaken = ec; });
    vigil::testing::run_until(io_, [&] { return shaken.has_value(); });
    return shaken.value_or(asio::error::timed_out);
  }

  // Reads `chunk` bytes at a time until an error, bounded; the error, and what was read.
  std::pair<error_code, std::string> read_to_end(size_t chunk = 512) {
    std::optional<error_code> ended;
    std::string all;
    std::string in(chunk, '\0');
    std::function<void()> read = [&] {
      socket_.async_read_some(asio::buffer(in), [&](const error_code& ec, size_t n) {
        all.append(in, 0, n);
        if (ec) {
          ended = ec;
        } else {
          read();
        }
      });
    };
    read();
    vigil::testing::run_until(io_, [&] { return ended.has_value(); });
    return {ended.value_or(asio::error::timed_out), all};
  }

  asio::io_context io_;
  TestServer server_{io_, {.tls = GetParam()}};
  asio::ssl::context context_{asio::ssl::context::tls_client};
  TlsSocket socket_{io_, context_};
};

TEST_P(TlsSocketTest, ARequestAndItsAnswer) {
  server_.set_behaviour(Behaviour::kRespond, testing::http_response(200, "ok"));
  ASSERT_FALSE(connect_and_handshake());
  std::optional<error_code> written;
  asio::async_write(socket_, asio::buffer(std::string_view("GET / HTTP/1.1\r\n\r\n")),
                    [&](const error_code& ec, size_t) { written = ec; });
  vigil::testing::run_until(io_, [&] { return written.has_value(); });
  ASSERT_EQ(written, error_code());

  // Small reads, so that one record takes several.
  const auto [ended, answer] = read_to_end(7);
  EXPECT_EQ(ended,
            asio::ssl::error::stream_truncated);  // the test server closes without a close_notify
  EXPECT_EQ(answer, testing::http_response(200, "ok"));
  ASSERT_EQ(server_.requests().size(), 1u);
  EXPECT_EQ(server_.requests().front(), "GET / HTTP/1.1\r\n\r\n");
}

TEST_P(TlsSocketTest, AServerThatClosesWithoutCloseNotifyTruncatesTheStream) {
  server_.set_behaviour(Behaviour::kClose);
  ASSERT_FALSE(connect_and_handshake());
  EXPECT_EQ(read_to_end().first, asio::ssl::error::stream_truncated);
}

TEST_P(TlsSocketTest, WritesToAClosedConnectionFailWithoutSigpipe) {
  server_.set_behaviour(Behaviour::kClose);
  ASSERT_FALSE(connect_and_handshake());
  // Nothing is read, so OpenSSL sees no error and every write reaches the socket. Once the
  // server's close is in, a write draws a reset and the next fails with EPIPE.
  std::optional<error_code> failed;
  const std::string block(1024, 'x');
  std::function<void()> write = [&] {
    asio::async_write(socket_, asio::buffer(block), [&](const error_code& ec, size_t) {
      if (ec) {
        failed = ec;
      } else {
        write();
      }
    });
  };
  write();
  vigil::testing::run_until(io_, [&] { return failed.has_value(); });
  EXPECT_TRUE(failed.has_value()) << "no write failed within the limit";
}

TEST_P(TlsSocketTest, AResultKnownAtOnceIsPostedNotDeliveredInline) {
  server_.set_behaviour(Behaviour::kKeepAlive, testing::http_response(200, "ok"));
  ASSERT_FALSE(connect_and_handshake());
  bool called = false;
  socket_.async_read_some(asio::mutable_buffer(),
                          [&](const error_code&, size_t) { called = true; });
  EXPECT_FALSE(called);
  vigil::testing::run_until(io_, [&] { return called; });
  EXPECT_TRUE(called);
}

TEST_P(TlsSocketTest, ClosingTheSocketEndsAPendingReadWithoutAnotherSslCall) {
  server_.set_behaviour(Behaviour::kKeepAlive, testing::http_response(200, "ok"));
  ASSERT_FALSE(connect_and_handshake());
  std::optional<error_code> ended;
  std::string in(64, '\0');
  socket_.async_read_some(asio::buffer(in), [&](const error_code& ec, size_t) { ended = ec; });
  socket_.next_layer().close();
  vigil::testing::run_until(io_, [&] { return ended.has_value(); });
  EXPECT_EQ(ended, asio::error::operation_aborted);
}

INSTANTIATE_TEST_SUITE_P(Versions, TlsSocketTest,
                         ::testing::Values(TlsVersion::kTls12, TlsVersion::kTls13),
                         [](const auto& info) {
                           return info.param == TlsVersion::kTls12 ? "Tls12" : "Tls13";
                         });

}  // namespace
}  // namespace vigil::health
