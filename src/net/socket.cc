#include "net/socket.h"

#include <fcntl.h>
#include <netinet/tcp.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace vigil::net {

std::string errno_string(int err) { return std::strerror(err); }

Result<Fd> listen_tcp(const SocketAddress& address, const ListenOptions& options) {
  Fd fd(::socket(address.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fail("socket: " + errno_string(errno));
  const int one = 1;
  const int zero = 0;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (options.reuse_port &&
      ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) {
    return fail("SO_REUSEPORT: " + errno_string(errno));
  }
  if (address.family() == AF_INET6) {
    ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  }
  if (options.freebind) {
    const bool v6 = address.family() == AF_INET6;
    if (::setsockopt(fd.get(), v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_FREEBIND : IP_FREEBIND,
                     &one, sizeof one) != 0) {
      return fail("IP_FREEBIND: " + errno_string(errno));
    }
  }
  if (::bind(fd.get(), address.sockaddr_ptr(), address.size()) != 0) {
    const int err = errno;
    return std::unexpected(Error{
        .message = "cannot bind " + address.to_string() + ": " + errno_string(err), .code = err});
  }
  if (::listen(fd.get(), options.backlog) != 0) {
    return fail("cannot listen on " + address.to_string() + ": " + errno_string(errno));
  }
  return fd;
}

Result<SocketAddress> local_address(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) {
    return fail("getsockname: " + errno_string(errno));
  }
  return SocketAddress::from_sockaddr(reinterpret_cast<sockaddr*>(&ss), len);
}

Result<SocketAddress> peer_address(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) {
    return fail("getpeername: " + errno_string(errno));
  }
  return SocketAddress::from_sockaddr(reinterpret_cast<sockaddr*>(&ss), len);
}

std::expected<Connecting, ConnectError> connect_nonblocking(const SocketAddress& to) {
  Connecting out;
  out.fd.reset(::socket(to.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!out.fd.valid()) {
    return std::unexpected(
        ConnectError{.message = "socket: " + errno_string(errno), .local = true});
  }
  set_nodelay(out.fd.get());
  if (::connect(out.fd.get(), to.sockaddr_ptr(), to.size()) == 0) {
    out.in_progress = false;
    return out;
  }
  if (errno != EINPROGRESS) return std::unexpected(ConnectError{.message = errno_string(errno)});
  return out;
}

int socket_error(int fd) {
  int err = 0;
  socklen_t len = sizeof err;
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
  return err;
}

void set_nodelay(int fd) {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

DeadPeerOptions dead_peer_options(std::chrono::nanoseconds timeout) {
  using std::chrono::seconds;
  const auto whole = std::max(seconds(2), std::chrono::duration_cast<seconds>(timeout));
  DeadPeerOptions o;
  o.keepalive_idle = std::max(seconds(1), whole / 2);
  o.keepalive_count = 3;
  o.keepalive_interval = std::max(seconds(1), (whole - o.keepalive_idle) / o.keepalive_count);
  o.user_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(whole);
  return o;
}

void set_dead_peer_detection(int fd, const DeadPeerOptions& o) {
  const int one = 1;
  const int idle = static_cast<int>(o.keepalive_idle.count());
  const int interval = static_cast<int>(o.keepalive_interval.count());
  const int count = o.keepalive_count;
  const unsigned user_timeout = static_cast<unsigned>(o.user_timeout.count());
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
  ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout, sizeof user_timeout);
}

}  // namespace vigil::net
