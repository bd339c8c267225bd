// Local failures: a check that vigil could not make because it lacked a resource of its own (a
// descriptor, socket buffers, memory, a local port). Such a result says nothing of the member and
// never counts against it (HealthChecker::record). Pure; any thread.
#pragma once

#include <cstddef>
#include <string_view>

#include "model/check_result.h"

namespace vigil::health {

// The socket(2) the probes call: ::socket in production. A test passes one that fails, the way
// Beast's test stream fails at the Nth operation, rather than lowering the process's fd limit.
using OpenSocket = int (*)(int domain, int type, int protocol);
OpenSocket default_open_socket();

// Where the checks' sockets come from. `open` makes a new one. A TCP check ends by
// disconnecting its socket (connect() to AF_UNSPEC) and keeps it, up to `idle_tcp` of them, for
// the next check of that address family: no socket(), epoll_ctl() or close() per check, and no
// socket to allocate and free in the kernel. Tests set `idle_tcp` to 0 to make every check
// open one.
struct CheckSockets {
  OpenSocket open = default_open_socket();
  size_t idle_tcp = 64;
};

// The errno values of socket(2) and connect(2) that are our shortage, not the member's.
bool is_local_errno(int error);

// The result of a socket(2) or connect(2) that failed with `error` at `step` ("socket",
// "connect"): kLocalError for a local shortage, else kRefused or kNetworkError.
model::CheckResult socket_failure(std::string_view step, int error);

}  // namespace vigil::health
