// Checks with send_proxy: the PROXY header HAProxy's check-send-proxy sends (v1 UNKNOWN, v2
// LOCAL) comes first on the connection, before the HTTP request and before TLS.
#include <gtest/gtest.h>

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <optional>

#include "health/probe.h"
#include "health/run_probe.h"
#include "health/test_tls_server.h"
#include "testing/run_until.h"

namespace vigil::health {
namespace {

using namespace std::chrono_literals;
using model::MonitorType;
using model::Outcome;
using model::ProxyProtocol;
using testing::Behaviour;
using testing::TestServer;

class ProxyProbeTest : public ::testing::Test {
 protected:
  model::CheckResult probe(MonitorType type, uint16_t port, ProxyProtocol header) {
    ProbeTarget t{.address = "127.0.0.1", .port = port, .proxy_header = header};
    t.monitor.type = type;
    return vigil::testing::run_probe(io_, prober_, t);
  }

  boost::asio::io_context io_;
  SteadyClock clock_;
  Prober prober_{io_, clock_};
};

TEST_F(ProxyProbeTest, HttpChecksStartWithTheHeader) {
  const std::pair<ProxyProtocol, std::string> cases[] = {
      {ProxyProtocol::kV1, "PROXY UNKNOWN\r\nGET /readyz"},
      {ProxyProtocol::kOff, "GET /readyz"},
  };
  for (const auto& [header, start] : cases) {
    TestServer server(io_);
    server.set_behaviour(Behaviour::kRespond, testing::http_response(200, "ok"));
    const auto r = probe(MonitorType::kHttp, server.port(), header);
    EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;
    ASSERT_EQ(server.requests().size(), 1u);
    EXPECT_TRUE(server.requests()[0].starts_with(start))
        << static_cast<int>(header) << ": " << server.requests()[0];
  }
}

// The test server reads request heads to an empty line, which v2's signature starts with: the
// header's bytes are read raw here.
TEST_F(ProxyProbeTest, TcpChecksSendTheHeaderToo) {
  namespace asio = boost::asio;
  const std::pair<ProxyProtocol, std::string> cases[] = {
      {ProxyProtocol::kV1, "PROXY UNKNOWN\r\n"},
      {ProxyProtocol::kV2, std::string("\r\n\r\n\0\r\nQUIT\n\x20\x00\x00\x00", 16)},
  };
  for (const auto& [header, want] : cases) {
    asio::ip::tcp::acceptor listener(io_, {asio::ip::make_address("127.0.0.1"), 0});
    asio::ip::tcp::socket peer(io_);
    std::array<char, 64> buf{};
    std::string got;
    listener.async_accept(peer, [&](const boost::system::error_code& ec) {
      if (ec) return;
      peer.async_read_some(asio::buffer(buf), [&](const boost::system::error_code&, size_t n) {
        got.assign(buf.data(), n);
      });
    });
    const auto r = probe(MonitorType::kTcp, listener.local_endpoint().port(), header);
    EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;
    vigil::testing::run_until(io_, [&] { return !got.empty(); });
    EXPECT_EQ(got, want) << static_cast<int>(header);
  }
}

TEST_F(ProxyProbeTest, TheHeaderGoesBeforeTls) {
  // A TLS server reads the header as a broken ClientHello: the handshake fails, which shows
  // the header went first, on the plain socket.
  TestServer server(io_, {.tls = testing::TlsVersion::kAny});
  const auto r = probe(MonitorType::kTlsHello, server.port(), ProxyProtocol::kV2);
  EXPECT_EQ(r.outcome, Outcome::kTlsFailed) << r.detail;
  const auto plain = probe(MonitorType::kTlsHello, server.port(), ProxyProtocol::kOff);
  EXPECT_EQ(plain.outcome, Outcome::kOk) << plain.detail;
}

}  // namespace
}  // namespace vigil::health
