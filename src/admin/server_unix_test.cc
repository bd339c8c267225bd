// AdminServer on a real Unix socket (admin.socket): the same routes and token as over TCP, and
// the override's "by" names the user the kernel reports, not the one the client claims. Every
// wait is for a condition, bounded in time; nothing sleeps.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <filesystem>

#include "admin/fake_daemon_test.h"
#include "admin/server.h"
#include "net/unix_socket.h"
#include "testing/run_until.h"

namespace vigil::admin {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using namespace std::chrono_literals;

struct Reply {
  int status = 0;  // 0: the connection ended without an answer
  std::string body;
  std::string error;
};

class ServerUnixTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "/vigil-admin-" + std::to_string(::getpid()) + ".sock";
    auto listener = net::listen_unix(path_);
    ASSERT_TRUE(listener) << listener.error().message;
    server_ = std::make_unique<AdminServer>(
        io_, Options{.listen = "127.0.0.1:0", .token = "secret", .unix_fd = listener->fd.release()},
        daemon_);
    auto started = server_->start();
    ASSERT_TRUE(started) << started.error().message;
    ASSERT_GE(server_->unix_listening_fd(), 0);
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove(path_);
  }

  Reply send(const std::string& bytes) {
    Reply reply;
    bool done = false;
    asio::local::stream_protocol::socket socket(io_);
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    socket.async_connect({path_}, [&](beast::error_code ec) {
      if (ec) {
        reply.error = ec.message();
        done = true;
        return;
      }
      asio::async_write(socket, asio::buffer(bytes), [&](beast::error_code, size_t) {
        http::async_read(socket, buffer, parser, [&](beast::error_code read_ec, size_t) {
          if (read_ec) {
            reply.error = read_ec.message();
          } else {
            reply.status = static_cast<int>(parser.get().result_int());
            reply.body = parser.get().body();
          }
          done = true;
        });
      });
    });
    vigil::testing::run_until(
        io_, [&] { return done; }, 5s);
    EXPECT_TRUE(done) << "no answer within 5 s";
    return reply;
  }

  Reply put_drain(const std::string& token) {
    const std::string body = R"j({"state": "drain", "by": "CLI (mallory)"})j";
    return send(
        "PUT /v1/pools/masters/members/master-01/admin HTTP/1.1\r\nHost: localhost\r\n"
        "X-Auth-Token: " +
        token + "\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\nConnection: close\r\n\r\n" + body);
  }

  asio::io_context io_;
  testing::FakeDaemon daemon_;
  std::unique_ptr<AdminServer> server_;
  std::string path_;
};

TEST_F(ServerUnixTest, ServesTheSameRoutesWithTheSameToken) {
  const Reply healthz =
      send("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(healthz.status, 200) << healthz.error;
  const Reply no_token =
      send("GET /v1/status HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(no_token.status, 401) << no_token.error;
  EXPECT_EQ(put_drain("wrong").status, 401);
  EXPECT_FALSE(daemon_.lbs[0].pools[0].members[0].admin_override);
}

TEST_F(ServerUnixTest, TheKernelNamesWhoSetAnOverride) {
  const passwd* me = ::getpwuid(::getuid());
  ASSERT_NE(me, nullptr);
  const Reply r = put_drain("secret");
  ASSERT_EQ(r.status, 200) << r.error << r.body;
  const auto& o = daemon_.lbs[0].pools[0].members[0].admin_override;
  ASSERT_TRUE(o);
  // mallory's claim is dropped; root's (who may claim anyone, as sudo does) is kept after it.
  const std::string user = me->pw_name;
  EXPECT_EQ(o->by, user == "root" ? "CLI (root, for mallory)" : "CLI (" + user + ")");
}

}  // namespace
}  // namespace vigil::admin
