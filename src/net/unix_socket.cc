#include "net/unix_socket.h"

#include <grp.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "net/socket.h"

namespace vigil::net {
namespace {

constexpr mode_t kSocketMode = 0660;
constexpr const char* kSocketGroup = "vigil";

sockaddr_un unix_address(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path, path.data(), path.size());  // check_socket_path bounds it
  return a;
}

// Whether something accepts connections on the socket at `path`. Non-blocking, so that a listener
// with a full backlog (EAGAIN) counts as one rather than hanging the start.
bool answers(const std::string& path) {
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return false;
  const sockaddr_un a = unix_address(path);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0) return true;
  return errno == EAGAIN || errno == EINPROGRESS;
}

AtPath what_is_at(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT ? AtPath::kNothing : AtPath::kOther;
  return S_ISSOCK(st.st_mode) ? AtPath::kSocket : AtPath::kOther;
}

std::optional<gid_t> group_id(const char* name) {
  group g{};
  group* found = nullptr;
  std::vector<char> buffer(16 * 1024);
  if (::getgrnam_r(name, &g, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
    return std::nullopt;
  }
  return g.gr_gid;
}

std::string group_name(gid_t gid) {
  group g{};
  group* found = nullptr;
  std::vector<char> buffer(16 * 1024);
  if (::getgrgid_r(gid, &g, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
    return "gid " + std::to_string(gid);
  }
  return g.gr_name;
}

// Group `vigil` lets its members use the CLI without root; a process that may not give its
// files to it (not root, not a member) keeps its own group rather than failing the start.
std::string give_group(const std::string& path) {
  if (const auto vigil = group_id(kSocketGroup)) {
    if (*vigil == ::getegid() || ::chown(path.c_str(), static_cast<uid_t>(-1), *vigil) == 0) {
      return kSocketGroup;
    }
  }
  return group_name(::getegid());
}

}  // namespace

Result<void> check_socket_path(std::string_view path) {
  if (!path.starts_with('/')) return fail("must be an absolute path");
  if (path.ends_with('/')) return fail("names a directory; give the socket's file name too");
  if (path.find('\0') != std::string_view::npos) return fail("holds a NUL byte");
  if (path.size() > kMaxSocketPath) {
    return fail("is " + std::to_string(path.size()) + " bytes long; a Unix socket's path holds " +
                std::to_string(kMaxSocketPath) + " at most");
  }
  return {};
}

BeforeBind before_bind(AtPath found, bool answers) {
  switch (found) {
    case AtPath::kNothing:
      return BeforeBind::kBind;
    case AtPath::kSocket:
      return answers ? BeforeBind::kRefuseInUse : BeforeBind::kRemoveStale;
    case AtPath::kOther:
      return BeforeBind::kRefuseNotSocket;
  }
  return BeforeBind::kRefuseNotSocket;
}

Result<UnixListener> listen_unix(const std::string& path) {
  if (auto ok = check_socket_path(path); !ok) {
    return fail("admin socket " + path + ": " + ok.error().message);
  }
  const AtPath found = what_is_at(path);
  switch (before_bind(found, found == AtPath::kSocket && answers(path))) {
    case BeforeBind::kBind:
      break;
    case BeforeBind::kRemoveStale:
      if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
        return fail("cannot remove the stale socket " + path + ": " + errno_string(errno));
      }
      break;
    case BeforeBind::kRefuseInUse:
      return fail("admin socket " + path +
                  ": another process listens on it (is vigil running already?)");
    case BeforeBind::kRefuseNotSocket:
      return fail("admin socket " + path +
                  ": something that is not a socket is there; vigil removes only a stale "
                  "socket, so move it away or choose another admin.socket");
  }
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fail("socket: " + errno_string(errno));
  const sockaddr_un a = unix_address(path);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    return fail("cannot bind the admin socket " + path + ": " + errno_string(errno));
  }
  // Mode and group are set before listen(): until then a connect is refused, so no client ever
  // reaches the socket under the umask's mode.
  if (::chmod(path.c_str(), kSocketMode) != 0) {
    const std::string why = errno_string(errno);
    ::unlink(path.c_str());
    return fail("cannot set the admin socket's mode on " + path + ": " + why);
  }
  std::string group = give_group(path);
  if (::listen(fd.get(), SOMAXCONN) != 0) {
    const std::string why = errno_string(errno);
    ::unlink(path.c_str());
    return fail("cannot listen on the admin socket " + path + ": " + why);
  }
  return UnixListener{.fd = std::move(fd), .group = std::move(group)};
}

Result<std::string> peer_user(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    return fail("SO_PEERCRED: " + errno_string(errno));
  }
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buffer(16 * 1024);
  if (::getpwuid_r(cred.uid, &pw, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
    return "uid " + std::to_string(cred.uid);
  }
  return std::string(pw.pw_name);
}

bool may_connect(const std::string& path) {
  return what_is_at(path) == AtPath::kSocket && ::access(path.c_str(), W_OK) == 0;
}

void remove_socket(const std::string& path) {
  if (what_is_at(path) == AtPath::kSocket) ::unlink(path.c_str());
}

}  // namespace vigil::net
