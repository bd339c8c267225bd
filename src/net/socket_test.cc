#include "net/socket.h"

#include <gtest/gtest.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

namespace vigil::net {
namespace {

bool wait_writable(int fd) {
  pollfd p{.fd = fd, .events = POLLOUT, .revents = 0};
  return ::poll(&p, 1, 5000) == 1;
}

// 192.0.2.0/24 is TEST-NET-1, on no interface of a test host; binding sends nothing.
TEST(Socket, FreebindBindsAnAddressTheHostDoesNotHold) {
  auto absent = SocketAddress::from_ip("192.0.2.1", 0);
  auto refused = listen_tcp(*absent, {.reuse_port = false});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("Cannot assign requested address"), std::string::npos)
      << refused.error().message;
  auto bound = listen_tcp(*absent, {.reuse_port = false, .freebind = true});
  ASSERT_TRUE(bound) << bound.error().message;
  EXPECT_EQ(local_address(bound->get())->to_string().rfind("192.0.2.1:", 0), 0u);
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

// The workers set the client leg's options once on the listening socket and rely on accepted
// sockets inheriting them.
TEST(Socket, AcceptedSocketsInheritTheListenersTcpOptions) {
  using namespace std::chrono_literals;
  auto listener = listen_tcp(*SocketAddress::from_ip("127.0.0.1", 0));
  ASSERT_TRUE(listener);
  set_nodelay(listener->get());
  set_dead_peer_detection(listener->get(), {.keepalive_idle = 7s,
                                            .keepalive_interval = 3s,
                                            .keepalive_count = 4,
                                            .user_timeout = 12345ms});
  auto client = connect_nonblocking(*local_address(listener->get()));
  ASSERT_TRUE(client);
  pollfd p{.fd = listener->get(), .events = POLLIN, .revents = 0};
  ASSERT_EQ(::poll(&p, 1, 5000), 1);
  Fd accepted(::accept4(listener->get(), nullptr, nullptr, SOCK_CLOEXEC));
  ASSERT_TRUE(accepted.valid());
  auto get = [&](int level, int name) {
    int v = 0;
    socklen_t len = sizeof v;
    ::getsockopt(accepted.get(), level, name, &v, &len);
    return v;
  };
  EXPECT_EQ(get(IPPROTO_TCP, TCP_NODELAY), 1);
  EXPECT_EQ(get(SOL_SOCKET, SO_KEEPALIVE), 1);
  EXPECT_EQ(get(IPPROTO_TCP, TCP_KEEPIDLE), 7);
  EXPECT_EQ(get(IPPROTO_TCP, TCP_KEEPINTVL), 3);
  EXPECT_EQ(get(IPPROTO_TCP, TCP_KEEPCNT), 4);
  EXPECT_EQ(get(IPPROTO_TCP, TCP_USER_TIMEOUT), 12345);
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
