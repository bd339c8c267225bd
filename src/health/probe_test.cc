#include "health/probe.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>

#include "health/run_probe.h"
#include "health/test_tls_server.h"
#include "health/tls_resumption.h"
#include "testing/manual_clock.h"
#include "testing/run_until.h"

namespace vigil::health {
namespace {

using namespace std::chrono_literals;
using model::MonitorType;
using model::Outcome;
using testing::Behaviour;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::TestServer;
using testing::TlsVersion;

std::string first_request(const TestServer& s) {
  return s.requests().empty() ? std::string() : s.requests().front();
}

class ProbeTest : public ::testing::Test {
 protected:
  // Runs one probe to completion, bounded by a real-time limit.
  model::CheckResult probe(const ProbeTarget& target) {
    return vigil::testing::run_probe(io_, prober_, target);
  }

  // Lets the servers catch up (a TLS 1.3 client is done before the server), at most 5s.
  void settle(const std::function<bool()>& done) { vigil::testing::run_until(io_, done); }

  static ProbeTarget target(MonitorType type, uint16_t port, std::string address = "127.0.0.1") {
    ProbeTarget t{.address = std::move(address), .port = port};
    t.monitor.type = type;
    return t;
  }

  boost::asio::io_context io_;
  SteadyClock clock_;
  Prober prober_{io_, clock_};
};

TEST_F(ProbeTest, TcpConnects) {
  TestServer server(io_);
  const auto r = probe(target(MonitorType::kTcp, server.port()));
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;
  EXPECT_GT(r.duration, Duration(0));
}

TEST_F(ProbeTest, TcpCheckEndsBeforeTheServerAcceptsAndLeavesNoTimeWait) {
  namespace asio = boost::asio;
  asio::ip::tcp::acceptor listener(io_,
                                   asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  listener.non_blocking(true);
  // The check resets the connection as soon as the SYN-ACK is in, its ACK held back, so the
  // server's handshake never completes. Should the delayed ACK go first (the check's thread
  // stalled for 40 ms), the connection is accepted, and must then read as reset: a FIN (a
  // TIME_WAIT socket left behind) would read as eof. Three checks, so one stall cannot fail
  // the test; without the held-back ACK every check is accepted.
  int never_accepted = 0;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(probe(target(MonitorType::kTcp, listener.local_endpoint().port())).outcome,
              Outcome::kOk);
    asio::ip::tcp::socket accepted(io_);
    boost::system::error_code ec;
    listener.accept(accepted, ec);
    if (ec == asio::error::would_block) {
      ++never_accepted;
      continue;
    }
    ASSERT_FALSE(ec) << ec.message();
    char byte = 0;
    accepted.read_some(asio::buffer(&byte, 1), ec);
    EXPECT_EQ(ec, asio::error::connection_reset) << ec.message();
  }
  EXPECT_GT(never_accepted, 0);
}

TEST_F(ProbeTest, TcpConnectsOverIpv6) {
  boost::system::error_code ec;
  boost::asio::ip::tcp::acceptor probe_v6(io_);
  probe_v6.open(boost::asio::ip::tcp::v6(), ec);
  if (ec) GTEST_SKIP() << "no IPv6 here";
  TestServer server(io_, {.bind = "::1"});
  EXPECT_EQ(probe(target(MonitorType::kTcp, server.port(), "::1")).outcome, Outcome::kOk);
  EXPECT_EQ(probe(target(MonitorType::kTcp, server.port(), "[::1]")).outcome, Outcome::kOk);
}

TEST_F(ProbeTest, TcpResolvesHostNames) {
  TestServer server(io_);
  const auto r = probe(target(MonitorType::kTcp, server.port(), "localhost"));
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;
}

TEST_F(ProbeTest, TcpRefused) {
  uint16_t port = 0;
  {
    boost::asio::ip::tcp::acceptor a(
        io_, boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
    port = a.local_endpoint().port();
  }
  const auto r = probe(target(MonitorType::kTcp, port));
  EXPECT_EQ(r.outcome, Outcome::kRefused) << r.detail;
  EXPECT_THAT(r.detail, Not(IsEmpty()));
}

TEST_F(ProbeTest, UnknownHostFailsToResolve) {
  const auto r = probe(target(MonitorType::kTcp, 80, "no-such-host.invalid"));
  EXPECT_EQ(r.outcome, Outcome::kResolveFailed) << r.detail;
}

TEST_F(ProbeTest, TlsHelloAgainstTls12Only) {
  TestServer server(io_, {.tls = TlsVersion::kTls12});
  const auto r = probe(target(MonitorType::kTlsHello, server.port()));
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;
  EXPECT_EQ(r.detail, "TLSv1.2");
  settle([&] { return !server.server_names().empty(); });
  EXPECT_EQ(server.server_names(), std::vector<std::string>{""}) << "no SNI for an IP literal";
}

TEST_F(ProbeTest, TlsHelloAgainstTls13OnlySendsServerName) {
  TestServer server(io_, {.tls = TlsVersion::kTls13});
  auto t = target(MonitorType::kTlsHello, server.port());
  t.monitor.tls.server_name = "api.example";
  const auto r = probe(t);
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;
  EXPECT_EQ(r.detail, "TLSv1.3");
  settle([&] { return !server.server_names().empty(); });
  EXPECT_EQ(server.server_names(), std::vector<std::string>{"api.example"});
}

TEST_F(ProbeTest, TlsHelloSendsTheHostNameAsSni) {
  TestServer server(io_, {.tls = TlsVersion::kAny});
  const auto r = probe(target(MonitorType::kTlsHello, server.port(), "localhost"));
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;
  settle([&] { return !server.server_names().empty(); });
  EXPECT_EQ(server.server_names(), std::vector<std::string>{"localhost"});
}

TEST_F(ProbeTest, TlsHelloFailsAgainstAPlainServerSendingGarbage) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kGreet, "SSH-2.0-OpenSSH_9.2\r\n");
  const auto r = probe(target(MonitorType::kTlsHello, server.port()));
  EXPECT_EQ(r.outcome, Outcome::kTlsFailed);
  EXPECT_THAT(r.detail, Not(IsEmpty()));
}

TEST_F(ProbeTest, TlsHelloFailsWhenTheServerCloses) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kClose);
  const auto r = probe(target(MonitorType::kTlsHello, server.port()));
  EXPECT_EQ(r.outcome, Outcome::kTlsFailed) << r.detail;
}

TEST_F(ProbeTest, TlsHelloVerifiesAgainstTheCaFileAndName) {
  TestServer server(io_, {.tls = TlsVersion::kAny});
  auto t = target(MonitorType::kTlsHello, server.port());
  t.monitor.tls.verify = true;
  t.monitor.tls.ca_file = testing::write_temp_file("ca.pem", server.key_pair().cert_pem);
  t.monitor.tls.server_name = "localhost";
  auto r = probe(t);
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;

  t.monitor.tls.server_name = "wrong.example";
  r = probe(t);
  EXPECT_EQ(r.outcome, Outcome::kTlsFailed);
  EXPECT_THAT(r.detail, HasSubstr("hostname mismatch"));

  t.monitor.tls.server_name.clear();  // the address then: an IP SAN
  r = probe(t);
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;
  std::filesystem::remove(t.monitor.tls.ca_file);
}

TEST_F(ProbeTest, TlsHelloWithAnUnreadableClientCertFails) {
  TestServer server(io_, {.tls = TlsVersion::kAny});
  auto t = target(MonitorType::kTlsHello, server.port());
  t.monitor.tls.client_cert = "/nonexistent/cert.pem";
  const auto r = probe(t);
  EXPECT_EQ(r.outcome, Outcome::kTlsFailed);
  EXPECT_THAT(r.detail, HasSubstr("/nonexistent/cert.pem"));
  EXPECT_EQ(server.accepted(), 0);
}

TEST_F(ProbeTest, HttpsOk) {
  TestServer server(io_, {.tls = TlsVersion::kAny});
  server.set_behaviour(Behaviour::kRespond, testing::http_response(200, "ok"));
  auto t = target(MonitorType::kHttps, server.port());
  const auto r = probe(t);
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;
  EXPECT_EQ(r.http_code, 200);
  const std::string req = first_request(server);
  EXPECT_THAT(req, ::testing::StartsWith("GET /readyz?verbose HTTP/1.1\r\n"));
  EXPECT_THAT(req, HasSubstr(fmt::format("\r\nHost: 127.0.0.1:{}\r\n", server.port())));
  EXPECT_THAT(req, HasSubstr("\r\nUser-Agent: vigil-health\r\n"));
  EXPECT_THAT(req, HasSubstr("\r\nConnection: close\r\n"));
  EXPECT_THAT(req, Not(HasSubstr("Authorization")));
}

class ResumptionTest : public ProbeTest, public ::testing::WithParamInterface<TlsVersion> {
 protected:
  // One HTTPS check against `server` with this member's resumption, on the manual clock.
  Outcome check(const TestServer& server) {
    std::optional<model::CheckResult> result;
    auto t = std::make_shared<ProbeTarget>(target(MonitorType::kHttps, server.port()));
    t->resumption = resumption_;
    manual_prober_.start(t, [&](model::CheckResult r) {
      result = std::move(r);
      io_.stop();
    });
    io_.restart();
    io_.run_for(10s);
    return result ? result->outcome : Outcome::kTimeout;
  }

  vigil::testing::ManualClock manual_clock_;
  Prober manual_prober_{io_, manual_clock_};
  std::shared_ptr<TlsResumption> resumption_ = std::make_shared<TlsResumption>();
};

TEST_P(ResumptionTest, ChecksResumeTheirSessionAndShakeHandsInFullEveryMinute) {
  TestServer server(io_, {.tls = GetParam()});
  server.set_behaviour(Behaviour::kRespond, testing::http_response(200, "ok"));
  ASSERT_EQ(check(server), Outcome::kOk);
  manual_clock_.advance(5s);
  ASSERT_EQ(check(server), Outcome::kOk);
  manual_clock_.advance(5s);
  ASSERT_EQ(check(server), Outcome::kOk);
  // A minute after the full handshake, the next one is full again: the certificate is verified.
  manual_clock_.advance(TlsResumption::kFullHandshakeEvery);
  ASSERT_EQ(check(server), Outcome::kOk);
  manual_clock_.advance(5s);
  ASSERT_EQ(check(server), Outcome::kOk);
  settle([&] { return server.resumed().size() == 5; });
  EXPECT_EQ(server.resumed(), (std::vector<bool>{false, true, true, false, true}));
}

TEST_P(ResumptionTest, AFailedCheckForgetsTheSession) {
  TestServer server(io_, {.tls = GetParam()});
  server.set_behaviour(Behaviour::kRespond, testing::http_response(200, "ok"));
  ASSERT_EQ(check(server), Outcome::kOk);
  server.set_behaviour(Behaviour::kRespond, "garbage\r\n\r\n");
  ASSERT_EQ(check(server), Outcome::kBadResponse);  // resumed, then a bad answer
  server.set_behaviour(Behaviour::kRespond, testing::http_response(200, "ok"));
  ASSERT_EQ(check(server), Outcome::kOk);
  settle([&] { return server.resumed().size() == 3; });
  EXPECT_EQ(server.resumed(), (std::vector<bool>{false, true, false}));
}

INSTANTIATE_TEST_SUITE_P(Versions, ResumptionTest,
                         ::testing::Values(TlsVersion::kTls12, TlsVersion::kTls13),
                         [](const auto& info) {
                           return info.param == TlsVersion::kTls12 ? "Tls12" : "Tls13";
                         });

constexpr const char* kKubeFailure =
    "[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n[+]informer-sync ok\n"
    "readyz check failed\n";

TEST_F(ProbeTest, Http500WithAKubeVerboseBody) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kRespond, testing::http_response(500, kKubeFailure));
  const auto r = probe(target(MonitorType::kHttp, server.port()));
  EXPECT_EQ(r.outcome, Outcome::kBadStatus);
  EXPECT_EQ(r.http_code, 500);
  EXPECT_THAT(r.failed_checks, Contains("[-]etcd failed: reason withheld"));
  EXPECT_EQ(r.detail, "[+]ping ok");
  EXPECT_THAT(first_request(server), ::testing::StartsWith("GET /readyz?verbose HTTP/1.1\r\n"));
}

TEST_F(ProbeTest, ExpectedCodeRangeAccepts204) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kRespond, "HTTP/1.1 204 No Content\r\n\r\n");
  auto t = target(MonitorType::kHttp, server.port());
  t.monitor.path = "/status";
  t.monitor.expected_codes = *model::ExpectedCodes::parse("200-204");
  const auto r = probe(t);
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;
  EXPECT_EQ(r.http_code, 204);
  EXPECT_THAT(first_request(server), ::testing::StartsWith("GET /status HTTP/1.1\r\n"));
}

TEST_F(ProbeTest, GarbageAnswerIsABadResponse) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kRespond, "SSH-2.0-OpenSSH_9.2\r\n\r\n");
  const auto r = probe(target(MonitorType::kHttp, server.port()));
  EXPECT_EQ(r.outcome, Outcome::kBadResponse);
  EXPECT_THAT(r.detail, Not(IsEmpty()));
}

TEST_F(ProbeTest, CloseBeforeAFullHeaderIsABadResponse) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kRespond, "HTTP/1.1 200 OK\r\nContent-Le");
  const auto r = probe(target(MonitorType::kHttp, server.port()));
  EXPECT_EQ(r.outcome, Outcome::kBadResponse);
  EXPECT_THAT(r.detail, HasSubstr("before a full HTTP header"));
}

TEST_F(ProbeTest, BodyOverTheLimitIsReadAsFarAsItFits) {
  TestServer server(io_);
  std::string body = "[-]etcd failed: reason withheld\n" + std::string(200 * 1024, 'x');
  server.set_behaviour(Behaviour::kRespond, testing::http_response(503, body));
  const auto r = probe(target(MonitorType::kHttp, server.port()));
  EXPECT_EQ(r.outcome, Outcome::kBadStatus) << r.detail;
  EXPECT_EQ(r.http_code, 503);
  EXPECT_EQ(r.detail, "[-]etcd failed: reason withheld");
}

TEST_F(ProbeTest, BearerTokenIsSentFromTheFile) {
  TestServer server(io_, {.tls = TlsVersion::kAny});
  auto t = target(MonitorType::kHttps, server.port());
  t.monitor.bearer_token_file = testing::write_temp_file("token", "s3cret-token\n");
  t.monitor.host = "api.example";
  EXPECT_EQ(probe(t).outcome, Outcome::kOk);
  EXPECT_THAT(first_request(server), HasSubstr("\r\nAuthorization: Bearer s3cret-token\r\n"));
  EXPECT_THAT(first_request(server), HasSubstr("\r\nHost: api.example\r\n"));
  std::filesystem::remove(t.monitor.bearer_token_file);

  const auto r = probe(t);
  EXPECT_EQ(r.outcome, Outcome::kNetworkError);
  EXPECT_THAT(r.detail, HasSubstr("bearer_token_file"));
  EXPECT_EQ(server.accepted(), 1) << "no connection without a token";
}

TEST_F(ProbeTest, ClientCertificateIsReloadedWhenItsFileChanges) {
  const testing::KeyPair trusted = testing::make_self_signed("vigil-client");
  const testing::KeyPair other = testing::make_self_signed("someone-else");
  TestServer server(io_, {.tls = TlsVersion::kAny, .client_ca_pem = trusted.cert_pem});
  auto t = target(MonitorType::kHttps, server.port());
  t.monitor.tls.client_cert = testing::write_temp_file("client.pem", trusted.cert_pem);
  t.monitor.tls.client_key = testing::write_temp_file("client.key", trusted.key_pem);
  auto r = probe(t);
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;

  // Rotate to a certificate the server does not trust; mtimes set apart explicitly, since a
  // rewrite within the same clock tick could keep the old one.
  const auto rotate = [&](const testing::KeyPair& kp, std::filesystem::file_time_type when) {
    std::ofstream(t.monitor.tls.client_cert, std::ios::trunc) << kp.cert_pem;
    std::ofstream(t.monitor.tls.client_key, std::ios::trunc) << kp.key_pem;
    std::filesystem::last_write_time(t.monitor.tls.client_cert, when);
    std::filesystem::last_write_time(t.monitor.tls.client_key, when);
  };
  const auto now = std::filesystem::file_time_type::clock::now();
  rotate(other, now + 10s);
  r = probe(t);
  EXPECT_NE(r.outcome, Outcome::kOk);
  EXPECT_EQ(r.outcome, Outcome::kTlsFailed) << r.detail;

  rotate(trusted, now + 20s);
  r = probe(t);
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;
  std::filesystem::remove(t.monitor.tls.client_cert);
  std::filesystem::remove(t.monitor.tls.client_key);
}

TEST_F(ProbeTest, CancelledProbeNeverCallsBack) {
  TestServer server(io_);
  server.set_behaviour(Behaviour::kSilent);
  int calls = 0;
  ProbeHandle h = prober_.start(target(MonitorType::kHttp, server.port()),
                                [&](model::CheckResult) { ++calls; });
  EXPECT_TRUE(h.running());
  vigil::testing::run_until(io_, [&] { return server.requests().size() == 1; });
  ASSERT_EQ(server.requests().size(), 1u) << "the request was sent and is waiting";
  h.cancel();
  h.cancel();
  EXPECT_FALSE(h.running());
  vigil::testing::run_ready(io_);
  EXPECT_EQ(calls, 0);
}

TEST_F(ProbeTest, CancelBeforeTheConnectCompletesAndCallbackIsNeverInline) {
  TestServer server(io_);
  int calls = 0;
  ProbeHandle h =
      prober_.start(target(MonitorType::kTcp, server.port()), [&](model::CheckResult) { ++calls; });
  EXPECT_EQ(calls, 0) << "never inside start()";
  h.cancel();
  vigil::testing::run_ready(io_);
  EXPECT_EQ(calls, 0);

  ProbeHandle empty;
  empty.cancel();
  EXPECT_FALSE(empty.running());
}

}  // namespace
}  // namespace vigil::health
