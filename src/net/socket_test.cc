#include "net/socket.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

namespace vigil::net {
namespace {

bool wait_writable(int fd) {
  pollfd p{.fd = fd, .events = POLLOUT, .revents = 0};
  return ::poll(&p, 1, 5000) == 1;
}

TEST(Socket, ListensOnAKernelChosenPortAndConnects) {
  auto any = SocketAddress::from_ip("127.0.0.1", 0);
  auto listener = listen_tcp(*any);
  ASSERT_TRUE(listener) << listener.error().message;
  auto bound = local_address(listener->get());
  ASSERT_TRUE(bound);
  EXPECT_NE(bound->port(), 0);

  // A second socket on the same port: that is how each worker gets its own.
  auto second = listen_tcp(*bound);
  ASSERT_TRUE(second) << second.error().message;

  auto c = connect_nonblocking(*bound);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_TRUE(wait_writable(c->fd.get()));
  EXPECT_EQ(socket_error(c->fd.get()), 0);
}

TEST(Socket, RefusedConnectReportsTheError) {
  auto any = SocketAddress::from_ip("127.0.0.1", 0);
  SocketAddress closed;
  {
    auto listener = listen_tcp(*any);
    ASSERT_TRUE(listener);
    closed = *local_address(listener->get());
  }
  auto c = connect_nonblocking(closed);
  if (!c) {
    EXPECT_NE(c.error().message.find("refused"), std::string::npos);
    return;
  }
  ASSERT_TRUE(wait_writable(c->fd.get()));
  EXPECT_EQ(socket_error(c->fd.get()), ECONNREFUSED);
}

TEST(Socket, BindErrorNamesTheAddress) {
  auto any = SocketAddress::from_ip("127.0.0.1", 0);
  auto first = listen_tcp(*any, {.reuse_port = false});
  ASSERT_TRUE(first);
  auto taken = listen_tcp(*local_address(first->get()), {.reuse_port = false});
  ASSERT_FALSE(taken);
  EXPECT_NE(taken.error().message.find("127.0.0.1:"), std::string::npos) << taken.error().message;
}

TEST(DeadPeerOptions, SpreadTheTimeoutOverIdleAndProbes) {
  using namespace std::chrono_literals;
  const auto o = dead_peer_options(10s);
  EXPECT_EQ(o.keepalive_idle, 5s);
  EXPECT_EQ(o.keepalive_count, 3);
  EXPECT_EQ(o.keepalive_interval, 1s);
  EXPECT_EQ(o.user_timeout, 10s);
  const auto tiny = dead_peer_options(100ms);  // the kernel counts in seconds
  EXPECT_EQ(tiny.keepalive_idle, 1s);
  EXPECT_EQ(tiny.user_timeout, 2s);
}

}  // namespace
}  // namespace vigil::net
