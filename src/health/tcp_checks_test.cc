// TcpChecks through the Prober: a check's socket, kept for the next check, never carries the
// last check's connection, error or events into the next one, and no socket is left behind.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "health/probe.h"
#include "health/run_probe.h"
#include "testing/run_until.h"

namespace vigil::health {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using model::MonitorType;
using model::Outcome;

int open_fds() {
  return static_cast<int>(std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                                        std::filesystem::directory_iterator()));
}

ProbeTarget tcp_target(uint16_t port, std::string address = "127.0.0.1") {
  ProbeTarget t{.address = std::move(address), .port = port};
  t.monitor.type = MonitorType::kTcp;
  return t;
}

// A port on 127.0.0.1 where nothing listens: a check there is refused.
uint16_t closed_port(asio::io_context& io) {
  asio::ip::tcp::acceptor a(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return a.local_endpoint().port();
}

// A listener whose queue is full: it drops SYNs, as a host that is gone would.
class SilentListener {
 public:
  explicit SilentListener(asio::io_context& io) : listener_(io) {
    listener_.open(asio::ip::tcp::v4());
    listener_.bind(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    listener_.listen(0);
    for (int i = 0; i < 3; ++i) {
      queued_.emplace_back(io);
      queued_.back().open(asio::ip::tcp::v4());
      queued_.back().non_blocking(true);
      // Not Asio's connect(): it would wait for the answer, however non-blocking the socket.
      const auto endpoint = listener_.local_endpoint();
      ::connect(queued_.back().native_handle(), endpoint.data(), endpoint.size());
    }
  }
  uint16_t port() const { return listener_.local_endpoint().port(); }

 private:
  asio::ip::tcp::acceptor listener_;
  std::vector<asio::ip::tcp::socket> queued_;
};

class TcpChecksTest : public ::testing::Test {
 protected:
  // Runs one check to completion, bounded by a real-time limit.
  model::CheckResult check(Prober& prober, const ProbeTarget& target) {
    return vigil::testing::run_probe(io_, prober, target);
  }

  asio::io_context io_;
  SteadyClock clock_;
};

TEST_F(TcpChecksTest, ChecksOneAfterAnotherUseOneSocket) {
  asio::ip::tcp::acceptor listener(io_,
                                   asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  listener.non_blocking(true);
  const uint16_t refused = closed_port(io_);
  Prober prober(io_, clock_);
  const int fds_before = open_fds();
  for (int i = 0; i < 10; ++i) {
    // Passed, refused, passed: neither the last connection nor the last error carries over.
    EXPECT_EQ(check(prober, tcp_target(listener.local_endpoint().port())).outcome, Outcome::kOk)
        << i;
    EXPECT_EQ(check(prober, tcp_target(refused)).outcome, Outcome::kRefused) << i;
    EXPECT_EQ(open_fds(), fds_before + 1) << i;
  }
  // Every passed check reset its connection before the server's handshake was done, reused
  // socket or not: the held-back ACK is set again on each. One accepted connection would be a
  // delayed ACK that went out first (the test's thread stalled for 40 ms); ten would be the
  // setting lost on reuse.
  int accepted = 0;
  for (;;) {
    asio::ip::tcp::socket s(io_);
    boost::system::error_code ec;
    listener.accept(s, ec);
    if (ec) break;
    ++accepted;
  }
  EXPECT_LT(accepted, 5);
}

TEST_F(TcpChecksTest, ASocketLeftByAnUnansweredCheckServesTheNextCheck) {
  SilentListener silent(io_);
  asio::ip::tcp::acceptor listener(io_,
                                   asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  Prober prober(io_, clock_);
  const int fds_before = open_fds();
  int calls = 0;
  ProbeHandle h = prober.start(tcp_target(silent.port()), [&](model::CheckResult) { ++calls; });
  vigil::testing::run_ready(io_);
  ASSERT_TRUE(h.running()) << "the SYN is unanswered";
  h.cancel();  // as the monitor's timeout does
  EXPECT_EQ(open_fds(), fds_before + 1) << "kept, disconnected, for the next check";
  const auto r = check(prober, tcp_target(listener.local_endpoint().port()));
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;
  EXPECT_EQ(open_fds(), fds_before + 1);
  EXPECT_EQ(calls, 0);
}

TEST_F(TcpChecksTest, EachAddressFamilyKeepsItsOwnSockets) {
  boost::system::error_code ec;
  asio::ip::tcp::acceptor v6(io_);
  v6.open(asio::ip::tcp::v6(), ec);
  if (!ec) v6.bind(asio::ip::tcp::endpoint(asio::ip::make_address("::1"), 0), ec);
  if (ec) GTEST_SKIP() << "no IPv6 here";
  v6.listen();
  asio::ip::tcp::acceptor v4(io_, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  Prober prober(io_, clock_);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(check(prober, tcp_target(v4.local_endpoint().port())).outcome, Outcome::kOk) << i;
    const auto r = check(prober, tcp_target(v6.local_endpoint().port(), "::1"));
    EXPECT_EQ(r.outcome, Outcome::kOk) << i << " " << r.detail;
  }
}

// Checks cancelled while their events are in the batch being handled, and new checks started
// from the same batch: a stale event (for a cancelled check, for an idle socket, or for a
// socket closed and its fd number reused) never reaches a new check.
void cancel_and_start_in_a_batch(asio::io_context& io, Prober& prober, uint16_t port) {
  constexpr int kChecks = 200;
  std::vector<ProbeHandle> handles(kChecks);
  std::vector<int> calls(2 * kChecks, 0);
  int outstanding = kChecks;
  std::function<ProbeCallback(int)> on_done;
  on_done = [&](int i) -> ProbeCallback {
    return [&, i](model::CheckResult r) {
      EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;
      ++calls[static_cast<size_t>(i)];
      if (i == 0) {
        for (int j = kChecks - 50; j < kChecks; ++j) {
          if (handles[static_cast<size_t>(j)].running()) {
            handles[static_cast<size_t>(j)].cancel();
            --outstanding;
          }
        }
        for (int j = kChecks; j < kChecks + 50; ++j) {
          handles.push_back(prober.start(tcp_target(port), on_done(j)));
          ++outstanding;
        }
      }
      if (--outstanding == 0) io.stop();
    };
  };
  for (int i = 0; i < kChecks; ++i) {
    handles[static_cast<size_t>(i)] = prober.start(tcp_target(port), on_done(i));
  }
  io.restart();
  io.run_for(10s);
  EXPECT_EQ(outstanding, 0);
  for (int c : calls) EXPECT_LE(c, 1);
  EXPECT_EQ(calls[0], 1);
}

TEST_F(TcpChecksTest, AnIdleSocketsEventInTheBatchNeverEndsTheCheckThatTakesIt) {
  asio::ip::tcp::acceptor listener(io_,
                                   asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  SilentListener silent(io_);
  Prober prober(io_, clock_);
  std::vector<ProbeHandle> next;
  // A's SYN-ACK comes on loopback inside connect(): its event is queued first. B is cancelled
  // before anything runs: its socket goes idle, and its hang-up is queued after A's event.
  prober.start(tcp_target(listener.local_endpoint().port()), [&](model::CheckResult r) {
    EXPECT_EQ(r.outcome, Outcome::kOk) << r.detail;
    // Started while the batch that holds B's idle event is handled (two: A's socket is idle by
    // now too): were one given B's socket, that event would end it as a failure.
    for (int i = 0; i < 2; ++i) {
      next.push_back(prober.start(tcp_target(silent.port()), [](model::CheckResult r) {
        ADD_FAILURE() << "an unanswered check ended: " << r.detail;
      }));
    }
  });
  prober.start(tcp_target(silent.port()), [](model::CheckResult) {}).cancel();
  ASSERT_TRUE(vigil::testing::run_until(io_, [&] { return next.size() == 2; }));
  vigil::testing::run_ready(io_);
  for (ProbeHandle& h : next) {
    EXPECT_TRUE(h.running());
    h.cancel();
  }
}

TEST_F(TcpChecksTest, ChecksCancelledInABatchNeverCallBackAndTheirSocketsAreClosed) {
  asio::ip::tcp::acceptor listener(io_,
                                   asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  Prober prober(io_, clock_, CheckSockets{.idle_tcp = 0});
  const int fds_before = open_fds();
  cancel_and_start_in_a_batch(io_, prober, listener.local_endpoint().port());
  EXPECT_EQ(open_fds(), fds_before) << "every check's socket is closed";
}

TEST_F(TcpChecksTest, ChecksCancelledInABatchNeverCallBackAndKeepFewSockets) {
  asio::ip::tcp::acceptor listener(io_,
                                   asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  constexpr size_t kKept = 8;
  Prober prober(io_, clock_, CheckSockets{.idle_tcp = kKept});
  const int fds_before = open_fds();
  cancel_and_start_in_a_batch(io_, prober, listener.local_endpoint().port());
  EXPECT_EQ(open_fds(), fds_before + static_cast<int>(kKept)) << "the rest are closed";
  // The kept sockets serve the next round as well as new ones did.
  cancel_and_start_in_a_batch(io_, prober, listener.local_endpoint().port());
  EXPECT_EQ(open_fds(), fds_before + static_cast<int>(kKept));
}

TEST_F(TcpChecksTest, CheckWithNoAnswerRunsUntilCancelledAndClosesItsSocket) {
  SilentListener silent(io_);
  Prober prober(io_, clock_, CheckSockets{.idle_tcp = 0});
  const int fds_before = open_fds();
  int calls = 0;
  ProbeHandle h = prober.start(tcp_target(silent.port()), [&](model::CheckResult) { ++calls; });
  // A real window, the one in these tests: what must not happen is the kernel's to do (it would
  // retransmit the SYN after a second), and no clock of ours moves it.
  io_.restart();
  io_.run_for(300ms);
  EXPECT_TRUE(h.running()) << "the SYN is unanswered";
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(open_fds(), fds_before + 1);
  h.cancel();
  EXPECT_FALSE(h.running());
  EXPECT_EQ(open_fds(), fds_before);
  vigil::testing::run_ready(io_);
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace vigil::health
