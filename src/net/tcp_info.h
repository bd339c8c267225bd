// What the kernel counts for one TCP socket (TCP_INFO), for the few decisions that need it. Plain
// functions over fds; any thread.
#pragma once

#include <cstdint>

namespace vigil::net {

// Bytes of data the peer has sent on `fd` so far (tcpi_bytes_received): a completed handshake
// alone counts none, so a host whose kernel accepts while its process never answers stays at 0.
// 0 when the kernel cannot tell (not a TCP socket, closed).
uint64_t bytes_received(int fd);

}  // namespace vigil::net
