// Socket helpers for the data plane: listening sockets, non-blocking connects and the TCP options
// vigil sets on both legs. Plain functions over fds; any thread.
#pragma once

#include <chrono>

#include "base/error.h"
#include "net/address.h"
#include "net/fd.h"

namespace vigil::net {

struct ListenOptions {
  bool reuse_port = true;  // one socket per worker, the kernel spreads connections
  int backlog = 4096;
  bool freebind = false;  // IP_FREEBIND: bind an address this host does not hold (yet)
};

// A non-blocking listening TCP socket bound to `address` (port 0: the kernel picks; read it back
// with local_address). An IPv6 wildcard also accepts IPv4 (dual stack).
Result<Fd> listen_tcp(const SocketAddress& address, const ListenOptions& options = {});

Result<SocketAddress> local_address(int fd);
Result<SocketAddress> peer_address(int fd);

// Starts a non-blocking connect. `in_progress` is false when it completed at once (it may on
// loopback). The caller learns the result from writability and socket_error().
struct Connecting {
  Fd fd;
  bool in_progress = true;
};
// Why a connect did not start. `local` when no socket could be made at all (out of descriptors
// or memory): this host's shortage, never the peer's fault.
struct ConnectError {
  std::string message;
  bool local = false;
};
std::expected<Connecting, ConnectError> connect_nonblocking(const SocketAddress& to);

// The pending error of a socket (SO_ERROR), 0 when none.
int socket_error(int fd);

void set_nodelay(int fd);

// Keepalive and TCP_USER_TIMEOUT, so a peer that vanished without a FIN or RST is noticed in
// seconds rather than the kernel's default two hours.
struct DeadPeerOptions {
  std::chrono::seconds keepalive_idle{10};
  std::chrono::seconds keepalive_interval{5};
  int keepalive_count = 3;
  std::chrono::milliseconds user_timeout{30000};

  bool operator==(const DeadPeerOptions&) const = default;
};
void set_dead_peer_detection(int fd, const DeadPeerOptions& options);

// Options that drop a silent peer after about `timeout`: the first keepalive probe after half of
// it, three probes over the other half, and TCP_USER_TIMEOUT for data left unacknowledged.
DeadPeerOptions dead_peer_options(std::chrono::nanoseconds timeout);

std::string errno_string(int err);

}  // namespace vigil::net
