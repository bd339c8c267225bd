#include "net/tcp_info.h"

// linux/tcp.h, not netinet/tcp.h: glibc's struct tcp_info stops before tcpi_bytes_received.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

namespace vigil::net {

uint64_t bytes_received(int fd) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (fd < 0 || ::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return 0;
  // An older kernel fills less of the struct: the field is then simply not there.
  if (len < offsetof(tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received) return 0;
  return info.tcpi_bytes_received;
}

}  // namespace vigil::net
