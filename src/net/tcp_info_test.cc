#include "net/tcp_info.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/socket.h"

namespace vigil::net {
namespace {

// The accepted side of a loopback connection, once the connect completed.
Fd accept_one(int listener) {
  pollfd p{.fd = listener, .events = POLLIN, .revents = 0};
  if (::poll(&p, 1, 5000) != 1) return Fd();
  return Fd(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
}

TEST(TcpInfo, CountsThePeersDataNotItsHandshake) {
  auto listener = listen_tcp(*SocketAddress::from_ip("127.0.0.1", 0), {.reuse_port = false});
  ASSERT_TRUE(listener) << listener.error().message;
  auto c = connect_nonblocking(*local_address(listener->get()));
  ASSERT_TRUE(c) << c.error().message;
  Fd server = accept_one(listener->get());
  ASSERT_TRUE(server.valid());
  // Connected, and the server's kernel has said nothing but SYN-ACK: a stopped process looks so.
  EXPECT_EQ(bytes_received(c->fd.get()), 0u);

  ASSERT_EQ(::write(server.get(), "hello", 5), 5);
  pollfd p{.fd = c->fd.get(), .events = POLLIN, .revents = 0};
  ASSERT_EQ(::poll(&p, 1, 5000), 1);
  EXPECT_EQ(bytes_received(c->fd.get()), 5u);
}

TEST(TcpInfo, NoSocketCountsNothing) {
  EXPECT_EQ(bytes_received(-1), 0u);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  EXPECT_EQ(bytes_received(pipe_fds[0]), 0u);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
}

}  // namespace
}  // namespace vigil::net
