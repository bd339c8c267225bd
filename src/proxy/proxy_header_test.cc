// The PROXY protocol on real loopback sockets: the header a member receives before the client's
// bytes, and accept_proxy's reading, refusing and timing out. Every wait is bounded.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <future>

#include "net/socket.h"
#include "proxy/test_support.h"

namespace vigil::proxy {
namespace {

using namespace std::chrono_literals;
using namespace test_support;

// Waits until the worker has handled everything posted before (a publish()).
void sync(Worker& w) {
  std::promise<void> done;
  w.ping([&] { done.set_value(); });
  ASSERT_EQ(done.get_future().wait_for(5s), std::future_status::ready);
}

void send_all(int fd, std::string_view bytes) {
  ASSERT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(bytes.size()));
}

std::string read_exactly(int fd, size_t n) {
  std::string got;
  char buf[4096];
  while (got.size() < n) {
    const ssize_t r = ::recv(fd, buf, std::min(sizeof buf, n - got.size()), 0);
    if (r <= 0) break;
    got.append(buf, static_cast<size_t>(r));
  }
  return got;
}

std::string port_of(int fd, bool local) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  local ? ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len)
        : ::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  return std::to_string(
      net::SocketAddress::from_sockaddr(reinterpret_cast<sockaddr*>(&ss), len).port());
}

TEST(ProxyHeader, TheMemberGetsAHeaderBeforeTheClientsBytes) {
  Member echo;  // echoes the header too: the client reads what the member got
  Proxy proxy({echo.address()});
  auto pool = std::make_shared<PoolSnapshot>(proxy.pool());
  pool->version++;
  pool->candidates[0].proxy_protocol = model::ProxyProtocol::kV1;
  proxy.publish(pool);
  sync(proxy.worker());
  net::Fd c = connect_blocking(proxy.address());
  send_all(c.get(), "hello");
  const std::string want = "PROXY TCP4 127.0.0.1 127.0.0.1 " + port_of(c.get(), true) + " " +
                           port_of(c.get(), false) + "\r\nhello";
  EXPECT_EQ(read_exactly(c.get(), want.size()), want);
}

// One worker whose listener has accept_proxy, in front of an echo member.
class AcceptProxy : public ::testing::Test {
 protected:
  void start(std::vector<net::Cidr> trusted, Duration timeout = 5s,
             model::ProxyProtocol to_member = model::ProxyProtocol::kOff,
             model::Algorithm algorithm = model::Algorithm::kRoundRobin) {
    auto pool = std::make_shared<PoolSnapshot>();
    pool->name = "p";
    pool->version = 1;
    pool->algorithm = algorithm;
    for (const Member* m : {&echo_, &other_}) {
      pool->candidates.push_back({.member_id = m == &echo_ ? "m" : "other",
                                  .name = m == &echo_ ? "m" : "other",
                                  .address = m->address(),
                                  .proxy_protocol = to_member,
                                  .stats = std::make_shared<BackendStats>()});
      if (algorithm != model::Algorithm::kSourceIp) break;  // one member but for hashing
    }
    auto fd = net::listen_tcp(loopback());
    address_ = *net::local_address(fd->get());
    std::vector<ListenSocket> listeners;
    listeners.push_back({.listener_name = "l",
                         .fd = std::move(*fd),
                         .accept_proxy = true,
                         .trusted_sources = std::move(trusted),
                         .proxy_header_timeout = timeout,
                         .stats = stats_});
    worker_ = std::make_unique<Worker>(0, std::move(listeners), std::vector<PoolSnapshotPtr>{pool},
                                       WorkerCallbacks{});
    worker_->start();
  }
  static std::vector<net::Cidr> loopback_only() { return {*net::Cidr::parse("127.0.0.0/8")}; }

  Member echo_;
  Member other_;
  std::shared_ptr<ListenerStats> stats_ = std::make_shared<ListenerStats>();
  net::SocketAddress address_;
  std::unique_ptr<Worker> worker_;
};

TEST_F(AcceptProxy, TheHeaderIsTakenOffAndItsClientPassedOn) {
  start(loopback_only(), 5s, model::ProxyProtocol::kV1);
  net::Fd c = connect_blocking(address_);
  // Header and data in one segment: the data must not be lost with the header.
  send_all(c.get(), "PROXY TCP6 2001:db8::7 2001:db8::1 40001 443\r\nhello");
  const std::string want =
      "PROXY TCP6 2001:db8::7 ::ffff:127.0.0.1 40001 " + port_of(c.get(), false) + "\r\nhello";
  EXPECT_EQ(read_exactly(c.get(), want.size()), want);
}

// Every real client here is 127.0.0.1: only the claimed addresses can spread them.
TEST_F(AcceptProxy, SourceIpHashesTheClaimedAddress) {
  start(loopback_only(), 5s, model::ProxyProtocol::kOff, model::Algorithm::kSourceIp);
  auto through = [&](const std::string& ip) {
    net::Fd c = connect_blocking(address_);
    send_all(c.get(), "PROXY TCP4 " + ip + " 10.0.0.1 40000 443\r\nx");
    EXPECT_EQ(read_exactly(c.get(), 1), "x") << ip;
  };
  for (int i = 0; i < 4; ++i) through("192.0.2.7");
  EXPECT_TRUE(echo_.accepted() == 4 || other_.accepted() == 4)
      << echo_.accepted() << " and " << other_.accepted() << ": one address, one member";
  for (int i = 1; i <= 16; ++i) through("198.51.100." + std::to_string(i));
  EXPECT_GT(echo_.accepted(), 0);
  EXPECT_GT(other_.accepted(), 0);
}

TEST_F(AcceptProxy, AHeaderInPiecesIsWaitedFor) {
  start(loopback_only());
  net::Fd c = connect_blocking(address_);
  const std::string v2 = std::string("\r\n\r\n\0\r\nQUIT\n\x21\x11\x00\x0c", 16) +
                         std::string("\xc0\x00\x02\x07\x0a\x00\x00\x01\x12\x34\x01\xbb", 12);
  send_all(c.get(), v2.substr(0, 7));
  // Half a header: the connection waits, and no member is connected yet.
  EXPECT_FALSE(closed_by_peer(c.get(), 100ms));
  EXPECT_EQ(echo_.accepted(), 0);
  send_all(c.get(), v2.substr(7) + "abc");
  EXPECT_EQ(read_exactly(c.get(), 3), "abc");
}

TEST_F(AcceptProxy, GarbageIsRefused) {
  start(loopback_only());
  net::Fd c = connect_blocking(address_);
  send_all(c.get(), "GET / HTTP/1.0\r\n\r\n");
  EXPECT_TRUE(closed_by_peer(c.get()));
  EXPECT_EQ(echo_.accepted(), 0);
}

TEST_F(AcceptProxy, AnUntrustedSourceIsRefused) {
  start({*net::Cidr::parse("192.0.2.0/24")});
  net::Fd c = connect_blocking(address_);
  send_all(c.get(), "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n");
  EXPECT_TRUE(closed_by_peer(c.get()));
  EXPECT_EQ(echo_.accepted(), 0);
}

TEST_F(AcceptProxy, AnIncompleteHeaderTimesOut) {
  start(loopback_only(), 200ms);
  net::Fd c = connect_blocking(address_);
  send_all(c.get(), "PROXY TCP4 1.2");
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(closed_by_peer(c.get(), 5000ms));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 150ms);
  EXPECT_EQ(echo_.accepted(), 0);
}

}  // namespace
}  // namespace vigil::proxy
