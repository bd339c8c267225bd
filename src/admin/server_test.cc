// AdminServer on a real loopback socket, with an in-process Beast client on the same io_context.
// Every wait is for a condition, bounded in time; nothing sleeps.
#include "admin/server.h"

#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json.hpp>

#include "admin/fake_daemon_test.h"
#include "admin/limits.h"
#include "admin/metrics.h"
#include "admin/metrics_test_view.h"
#include "admin/octavia/random_id.h"
#include "testing/run_until.h"

namespace vigil::admin {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

struct Reply {
  int status = 0;  // 0: the connection ended without an answer
  std::string body;
  std::string content_type;
  std::string set_cookie;
  std::string request_id;  // x-openstack-request-id
  std::string transfer_encoding;
  std::string error;
};

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override { start({.listen = "127.0.0.1:0", .token = "secret"}); }

  void start(Options options) {
    server_ = std::make_unique<AdminServer>(io_, std::move(options), daemon_);
    auto started = server_->start();
    ASSERT_TRUE(started) << started.error().message;
    const std::string bound = server_->bound();
    ASSERT_TRUE(bound.starts_with("127.0.0.1:")) << bound;
    port_ = static_cast<uint16_t>(std::stoi(bound.substr(bound.rfind(':') + 1)));
  }

  void run_until(const bool& done, std::chrono::milliseconds limit = 5s) {
    vigil::testing::run_until(
        io_, [&] { return done; }, limit);
  }

  // Sends `bytes` as they are and reads one HTTP answer, on a connection of its own.
  Reply send_raw(const std::string& bytes) {
    Reply reply;
    bool done = false;
    beast::tcp_stream stream(io_);
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(16 * 1024 * 1024);
    stream.expires_after(5s);
    stream.async_connect(
        tcp::endpoint(asio::ip::make_address("127.0.0.1"), port_), [&](beast::error_code ec) {
          if (ec) {
            reply.error = ec.message();
            done = true;
            return;
          }
          asio::async_write(stream, asio::buffer(bytes), [&](beast::error_code, size_t) {
            // Read even when the write failed: the server may have answered and closed early.
            http::async_read(stream, buffer, parser, [&](beast::error_code read_ec, size_t) {
              if (read_ec) {
                reply.error = read_ec.message();
              } else {
                reply.status = static_cast<int>(parser.get().result_int());
                reply.body = parser.get().body();
                reply.content_type = std::string(parser.get()[http::field::content_type]);
                reply.set_cookie = std::string(parser.get()[http::field::set_cookie]);
                reply.request_id = std::string(parser.get()["x-openstack-request-id"]);
                reply.transfer_encoding = std::string(parser.get()[http::field::transfer_encoding]);
              }
              done = true;
            });
          });
        });
    run_until(done);
    EXPECT_TRUE(done) << "no answer within 5 s";
    return reply;
  }

  Reply get(const std::string& target, const std::string& headers = "X-Auth-Token: secret\r\n") {
    return send_raw("GET " + target + " HTTP/1.1\r\nHost: x\r\n" + headers + "\r\n");
  }

  // A connection that sent `bytes` and holds on, as a slowloris client does.
  std::unique_ptr<beast::tcp_stream> hold(const std::string& bytes) {
    auto stream = std::make_unique<beast::tcp_stream>(io_);
    bool done = false;
    stream->async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port_),
                          [&](beast::error_code ec) {
                            if (ec || bytes.empty()) {
                              done = true;
                              return;
                            }
                            asio::async_write(*stream, asio::buffer(bytes),
                                              [&](beast::error_code, size_t) { done = true; });
                          });
    run_until(done);
    EXPECT_TRUE(done);
    return stream;
  }

  // True when the server closes `stream` within 3 s.
  bool closed_by_server(beast::tcp_stream& stream) {
    bool done = false;
    beast::error_code result;
    char byte = 0;
    stream.async_read_some(asio::buffer(&byte, 1), [&](beast::error_code ec, size_t) {
      result = ec;
      done = true;
    });
    run_until(done, 3s);
    if (!done) stream.close();
    vigil::testing::run_ready(io_);
    return done && (result == asio::error::eof || result == asio::error::connection_reset);
  }

  std::string faultstring(const Reply& r) {
    return std::string(boost::json::parse(r.body).at("faultstring").as_string());
  }

  asio::io_context io_;
  testing::FakeDaemon daemon_;
  std::unique_ptr<AdminServer> server_;
  uint16_t port_ = 0;
};

TEST_F(ServerTest, HealthzWithoutToken) {
  const Reply r = get("/healthz", "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok\n");
}

TEST_F(ServerTest, StatusNeedsTheRightToken) {
  const Reply none = get("/v1/status", "");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.content_type, "application/json");
  EXPECT_EQ(faultstring(none), "Authentication required");
  EXPECT_EQ(get("/v1/status", "X-Auth-Token: wrong\r\n").status, 401);
  const Reply ok = get("/v1/status");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(boost::json::parse(ok.body).at("loadbalancer").at("name"), "vigil");
  EXPECT_EQ(get("/v1/status", "Authorization: Bearer secret\r\n").status, 200);
}

TEST_F(ServerTest, OctaviaPathsFiltersAndErrors) {
  const Reply v2 = get("/v2/lbaas/pools?name=masters");
  ASSERT_EQ(v2.status, 200);
  EXPECT_EQ(boost::json::parse(v2.body).at("pools").as_array().size(), 1u);
  EXPECT_EQ(get("/v2.0/lbaas/loadbalancers").status, 200);
  const Reply missing = get("/v2.0/lbaas/pools/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(faultstring(missing), "Pool nope not found.");
  EXPECT_EQ(get("/no/such/path").status, 404);
  const Reply post = send_raw(
      "POST /v2/lbaas/pools/masters HTTP/1.1\r\nHost: x\r\nX-Auth-Token: secret\r\n"
      "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
  EXPECT_EQ(post.status, 409);
  const Reply create = send_raw(
      "POST /v2/lbaas/pools HTTP/1.1\r\nHost: x\r\nX-Auth-Token: secret\r\n"
      "Content-Length: 2\r\n\r\n{}");
  EXPECT_EQ(create.status, 405);
}

TEST_F(ServerTest, MetricsAndPage) {
  const Reply metrics = get("/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.content_type, "text/plain; version=0.0.4; charset=utf-8");
  const Reply page = get("/");
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("<html"), std::string::npos);
}

// /metrics goes out chunked, a piece at a time as the render thread makes it (a request behind
// it on the connection waits its turn); an HTTP/1.0 client gets it up to the close. Every line
// is the whole render's (but for the ages, which are of another moment). As many members as the
// default scrape serves whole.
TEST_F(ServerTest, MetricsAreStreamedInChunks) {
  daemon_.lbs = {testing::large_view(static_cast<int>(kAutoScopesMemberLimit))};
  const std::string whole = metrics_text(daemon_.lbs, testing::kNow, {.member_histograms = false});
  const Reply two = send_raw(
      "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Auth-Token: secret\r\n\r\n"
      "GET /metrics?scope=bogus HTTP/1.1\r\nHost: x\r\nX-Auth-Token: secret\r\n\r\n");
  ASSERT_EQ(two.status, 200) << two.error;
  EXPECT_EQ(two.transfer_encoding, "chunked");
  EXPECT_GT(two.body.size(), 3 * kMetricsPieceBytes);
  // Only the ages differ between two renders: compare the lines of one family without them.
  const auto lines_of = [](const std::string& text, const std::string& family) {
    std::string out;
    for (size_t at = text.find("\n" + family); at != std::string::npos;
         at = text.find("\n" + family, at + 1)) {
      out += text.substr(at, text.find('\n', at + 1) - at);
    }
    return out;
  };
  EXPECT_EQ(lines_of(two.body, "vigil_member_up{"), lines_of(whole, "vigil_member_up{"));
  const auto lines = [](const std::string& text) { return std::ranges::count(text, '\n'); };
  EXPECT_EQ(lines(two.body), lines(whole));
  EXPECT_TRUE(two.body.ends_with("\n"));
  EXPECT_EQ(get("/metrics?scope=bogus").status, 400);
  const Reply old = send_raw("GET /metrics HTTP/1.0\r\nX-Auth-Token: secret\r\n\r\n");
  EXPECT_EQ(old.status, 200) << old.error;
  EXPECT_EQ(old.transfer_encoding, "");
  EXPECT_EQ(lines(old.body), lines(whole));
}

// Above the limit the default scrape (admin.metrics.scopes: auto) leaves the members out and says
// so; a scrape that asks for them gets them.
TEST_F(ServerTest, MetricsLeaveManyMembersOutUnlessAsked) {
  daemon_.lbs = {testing::large_view(static_cast<int>(kAutoScopesMemberLimit) + 1)};
  const Reply plain = get("/metrics");
  ASSERT_EQ(plain.status, 200);
  EXPECT_EQ(plain.body.find("vigil_member_up{"), std::string::npos);
  EXPECT_NE(plain.body.find("vigil_pool_members{"), std::string::npos);
  EXPECT_NE(plain.body.find("\nvigil_metrics_members_left_out 1\n"), std::string::npos);
  const Reply asked = get("/metrics?scope=member&scope=process");
  ASSERT_EQ(asked.status, 200);
  EXPECT_NE(asked.body.find("vigil_member_up{"), std::string::npos);
  EXPECT_NE(asked.body.find("\nvigil_metrics_members_left_out 0\n"), std::string::npos);
}

TEST_F(ServerTest, SignsInWithTheFormAndACookieAndOutAgain) {
  EXPECT_EQ(get("/", "").status, 303);
  const std::string form = "token=secret";
  const Reply in = send_raw(
      "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://127.0.0.1\r\n"
      "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " +
      std::to_string(form.size()) + "\r\n\r\n" + form);
  ASSERT_EQ(in.status, 303) << in.body;
  ASSERT_TRUE(in.set_cookie.starts_with("vigil_session=")) << in.set_cookie;
  const std::string cookie = "Cookie: " + in.set_cookie.substr(0, in.set_cookie.find(';'));
  const Reply page = get("/", cookie + "\r\n");
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("signed in with the read-write token"), std::string::npos);
  // A rotated token signs every browser out.
  server_->set_token("rotated");
  EXPECT_EQ(get("/", cookie + "\r\n").status, 303);
}

// req- and a UUIDv4, as oslo's request-id middleware makes them.
bool is_request_id(const std::string& id) {
  return id.size() == 40 && id.starts_with("req-") && is_uuid(id.substr(4)) && id[18] == '4';
}

TEST_F(ServerTest, EveryAnswerHasAFreshRequestIdNotTheClients) {
  const Reply ok = get("/v2/lbaas/loadbalancers");
  const Reply missing = get("/v2.0/lbaas/pools/nope");
  const Reply denied = get("/v2/lbaas/pools", "X-OpenStack-Request-ID: req-mine\r\n");
  const Reply garbage = send_raw("GET / HTTP/9.9\r\n\r\n");
  const Reply healthz = get("/healthz", "");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(denied.status, 401);
  EXPECT_EQ(garbage.status, 400);
  for (const Reply* r : {&ok, &missing, &denied, &garbage, &healthz}) {
    EXPECT_TRUE(is_request_id(r->request_id)) << r->request_id;
  }
  EXPECT_NE(ok.request_id, missing.request_id);
}

TEST_F(ServerTest, TooLargeBodyIs413) {
  const std::string body(2 * 1024 * 1024, 'x');
  const Reply r = send_raw(
      "POST /v2/lbaas/pools HTTP/1.1\r\nHost: x\r\nX-Auth-Token: secret\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body);
  EXPECT_EQ(r.status, 413) << r.error;
  EXPECT_NE(r.body.find("faultstring"), std::string::npos);
}

TEST_F(ServerTest, TooLargeHeaderIs431) {
  const Reply r = get("/healthz", "X-Junk: " + std::string(20 * 1024, 'a') + "\r\n");
  EXPECT_EQ(r.status, 431) << r.error;
}

TEST_F(ServerTest, GarbageGets400AndTheServerGoesOn) {
  // The start of a TLS ClientHello, as from a client that thinks the API speaks https.
  static constexpr char kHello[] = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 junk\r\n\r\n";
  const Reply garbage = send_raw(std::string(kHello, sizeof kHello - 1));
  EXPECT_EQ(garbage.status, 400) << garbage.error;
  const Reply bad_version = send_raw("GET / HTTP/9.9\r\n\r\n");
  EXPECT_EQ(bad_version.status, 400) << bad_version.error;
  EXPECT_EQ(get("/healthz", "").status, 200);
}

TEST_F(ServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  const std::string one = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  bool done = false;
  int answers = 0;
  beast::tcp_stream stream(io_);
  beast::flat_buffer buffer;
  std::function<void()> read_next = [&] {
    auto parser = std::make_shared<http::response_parser<http::string_body>>();
    http::async_read(stream, buffer, *parser, [&, parser](beast::error_code ec, size_t) {
      if (ec || parser->get().result_int() != 200) {
        done = true;
        return;
      }
      if (++answers == 3) {
        done = true;
        return;
      }
      read_next();
    });
  };
  const std::string three = one + one + one;
  stream.async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port_),
                       [&](beast::error_code ec) {
                         ASSERT_FALSE(ec);
                         asio::async_write(stream, asio::buffer(three),
                                           [&](beast::error_code, size_t) { read_next(); });
                       });
  run_until(done);
  EXPECT_EQ(answers, 3);
}

TEST_F(ServerTest, CountsRequestsAndTellsWhetherOneIsBeingAnswered) {
  EXPECT_EQ(server_->requests(), 0u);
  // A head not finished is no request yet: nothing to answer.
  auto slow = hold("GET /healthz HTTP/1.1\r\nHo");
  vigil::testing::run_ready(io_);
  EXPECT_EQ(server_->requests(), 0u);
  EXPECT_FALSE(server_->answering());
  EXPECT_EQ(get("/healthz").status, 200);
  EXPECT_EQ(get("/v1/status").status, 200);
  EXPECT_EQ(server_->requests(), 2u);
  // The answer is with the client; the server's own completion may be a turn behind.
  vigil::testing::run_until(
      io_, [&] { return !server_->answering(); }, 1s);
  EXPECT_FALSE(server_->answering());
}

TEST_F(ServerTest, ClosesIdleConnections) {
  server_.reset();
  start({.listen = "127.0.0.1:0", .token = "secret", .idle_timeout = 100ms});
  bool done = false;
  beast::error_code result;
  beast::tcp_stream stream(io_);
  char byte = 0;
  stream.async_connect(
      tcp::endpoint(asio::ip::make_address("127.0.0.1"), port_), [&](beast::error_code) {
        stream.async_read_some(asio::buffer(&byte, 1), [&](beast::error_code ec, size_t) {
          result = ec;
          done = true;
        });
      });
  run_until(done, 3s);
  ASSERT_TRUE(done);
  EXPECT_EQ(result, asio::error::eof);
}

// At the cap a newcomer evicts the oldest connection that has not sent a whole request (or is
// idle), so /healthz gets through however many half-finished heads are held open.
TEST_F(ServerTest, ANewConnectionEvictsTheOldestUnfinishedOne) {
  server_.reset();
  start({.listen = "127.0.0.1:0", .token = "secret", .max_connections = 2});
  auto oldest = hold("GET /healthz HTTP/1.1\r\nHo");
  auto idle = hold("");
  ASSERT_TRUE(vigil::testing::run_until(io_, [&] { return server_->connections() == 2; }));
  EXPECT_EQ(get("/healthz", "").status, 200);
  EXPECT_TRUE(closed_by_server(*oldest));
  auto newer = hold("");
  ASSERT_TRUE(vigil::testing::run_until(io_, [&] { return server_->connections() == 2; }));
  EXPECT_EQ(get("/healthz", "").status, 200);  // the idle one is the oldest now
  EXPECT_TRUE(closed_by_server(*idle));
}

TEST_F(ServerTest, OneAddressCannotTakeEveryConnection) {
  server_.reset();
  start({.listen = "127.0.0.1:0",
         .token = "secret",
         .max_connections = 100,
         .max_connections_per_address = 2});
  auto first = hold("GET / HTTP/1.1\r\n");
  auto second = hold("GET / HTTP/1.1\r\n");
  ASSERT_TRUE(vigil::testing::run_until(io_, [&] { return server_->connections() == 2; }));
  EXPECT_EQ(get("/healthz", "").status, 200);
  EXPECT_TRUE(closed_by_server(*first));
  EXPECT_LE(server_->connections(), 2u);
}

TEST_F(ServerTest, ClosesAClientThatDoesNotFinishItsHead) {
  server_.reset();
  start({.listen = "127.0.0.1:0", .token = "secret", .header_timeout = 100ms});
  auto slow = hold("GET /healthz HTTP/1.1\r\nHost: x\r\n");  // no blank line, ever
  EXPECT_TRUE(closed_by_server(*slow));
}

TEST_F(ServerTest, AmbiguousFramingIs400) {
  const std::string head = "POST /v1/reload HTTP/1.1\r\nHost: x\r\nX-Auth-Token: secret\r\n";
  EXPECT_EQ(send_raw(head + "Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n").status, 400);
  EXPECT_EQ(
      send_raw(head + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n").status,
      400);
  EXPECT_EQ(send_raw(head + "Transfer-Encoding: gzip\r\n\r\n").status, 400);
  // Plain chunked is fine.
  EXPECT_EQ(send_raw("GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "0\r\n\r\n")
                .status,
            200);
}

TEST(FramingError, OnlyExactlyChunkedAlone) {
  EXPECT_FALSE(framing_error(0, "", true));
  EXPECT_FALSE(framing_error(1, "chunked", false));
  EXPECT_FALSE(framing_error(1, "Chunked", false));
  EXPECT_TRUE(framing_error(1, "chunked", true));
  EXPECT_TRUE(framing_error(1, "chunked, identity", false));
  EXPECT_TRUE(framing_error(2, "chunked", false));
  EXPECT_TRUE(framing_error(1, "identity", false));
}

TEST_F(ServerTest, StopClosesTheListener) {
  server_->stop();
  vigil::testing::run_ready(io_);  // the accept that stop() cancelled
  const Reply r = get("/healthz", "");
  EXPECT_EQ(r.status, 0);
  EXPECT_FALSE(r.error.empty());
}

TEST_F(ServerTest, TokenCanChange) {
  server_->set_token("new");
  EXPECT_EQ(get("/v1/status").status, 401);
  EXPECT_EQ(get("/v1/status", "X-Auth-Token: new\r\n").status, 200);
}

TEST(AdminServerStart, ErrorsNameTheAddress) {
  asio::io_context io;
  testing::FakeDaemon daemon;
  AdminServer first(io, {.listen = "127.0.0.1:0"}, daemon);
  ASSERT_TRUE(first.start());
  const std::string taken = first.bound();
  AdminServer second(io, {.listen = taken}, daemon);
  auto r = second.start();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "cannot listen on " + taken + ": Address already in use");
  for (const char* bad :
       {"8404", "127.0.0.1", "::1:80", "host.example:80", ":80", "1.2.3.4:99999"}) {
    AdminServer s(io, {.listen = bad}, daemon);
    auto err = s.start();
    ASSERT_FALSE(err) << bad;
    EXPECT_NE(err.error().message.find(bad), std::string::npos) << err.error().message;
  }
  AdminServer v6(io, {.listen = "[::1]:0"}, daemon);
  if (v6.start()) {  // the machine may have no IPv6 loopback
    EXPECT_TRUE(v6.bound().starts_with("[::1]:")) << v6.bound();
  }
}

}  // namespace
}  // namespace vigil::admin
