// Unix-domain stream sockets, for the admin API's local socket (admin.socket): checking a path,
// deciding what to do with what already sits there, binding, and naming the user at the other end
// of a connection (SO_PEERCRED). Plain functions over fds and paths; any thread.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "base/error.h"
#include "net/fd.h"

namespace vigil::net {

// sun_path holds 108 bytes, its NUL included.
inline constexpr size_t kMaxSocketPath = 107;

// An absolute path of at most kMaxSocketPath bytes that names a file, not a directory. The error
// is the reason alone: "must be an absolute path".
Result<void> check_socket_path(std::string_view path);

// What is at a socket's path before vigil binds it, and what to do about it.
enum class AtPath { kNothing, kSocket, kOther };
enum class BeforeBind {
  kBind,            // nothing there
  kRemoveStale,     // a socket nobody listens on: left by a vigil that died
  kRefuseInUse,     // a socket that answers: a running vigil's, which removing would orphan
  kRefuseNotSocket  // a file, directory, ...: a mistyped path must never delete a file
};
BeforeBind before_bind(AtPath found, bool answers);

struct UnixListener {
  Fd fd;              // non-blocking, listening
  std::string group;  // the socket file's group, as shown in the log
};
// Binds and listens on `path` after before_bind(): mode 0660, group `vigil` when that group
// exists and this process may give files to it, else the process's own. Errors name the path.
Result<UnixListener> listen_unix(const std::string& path);

// The user at the other end of a connected Unix socket, from the kernel (SO_PEERCRED), not from
// anything the client says: the name in the password database, "uid 1234" when it has none.
Result<std::string> peer_user(int fd);

// Whether `path` is a socket this process may connect to (it has write permission on it): what
// the CLI asks before it prefers admin.socket to admin.listen. It does not connect, so that a
// daemon's log does not fill with the CLI's probes.
bool may_connect(const std::string& path);

// Removes `path` if it is still a socket (a clean stop); anything else there is left alone.
void remove_socket(const std::string& path);

}  // namespace vigil::net
