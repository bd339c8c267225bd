#include "base/file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>

namespace vigil {
namespace {

std::string why(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

FsyncFn g_fsync = nullptr;  // set_fsync_for_tests()

}  // namespace

Result<std::string> read_file(const std::string& path, size_t max) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer; a regular file
  // reads the same either way.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return fail(why("cannot read", path));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(fmt::format("cannot read {}: not a regular file", path));
  }
  if (static_cast<uint64_t>(st.st_size) > max) {
    ::close(fd);
    return fail(fmt::format("cannot read {}: {} bytes, more than the {} a file may have", path,
                            st.st_size, max));
  }
  std::string out;
  char buf[65536];
  for (;;) {
    if (out.size() > max) {  // grew while being read
      ::close(fd);
      return fail(fmt::format("cannot read {}: more than the {} bytes a file may have", path, max));
    }
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      auto err = why("cannot read", path);
      ::close(fd);
      return fail(err);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

Result<std::string> read_secret_file(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text;
  std::string line = text->substr(0, text->find('\n'));
  const auto first = line.find_first_not_of(" \t\r");
  const auto last = line.find_last_not_of(" \t\r");
  if (first == std::string::npos) return fail(path + " is empty");
  return line.substr(first, last - first + 1);
}

Result<void> write_file_atomic(const std::string& path, const std::string& content, mode_t mode) {
  // 64 random bits: a name planted ahead is found with EEXIST, and another is drawn.
  std::random_device random;
  for (int attempt = 0;; ++attempt) {
    const uint64_t suffix = (uint64_t{random()} << 32) | random();
    const std::string tmp = fmt::format("{}.tmp.{}.{:016x}", path, ::getpid(), suffix);
    auto written = write_file_atomic_via(path, tmp, content, mode);
    if (written || written.error().code != EEXIST || attempt == 3) return written;
  }
}

Result<void> write_file_atomic_via(const std::string& path, const std::string& tmp,
                                   const std::string& content, mode_t mode) {
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    const int err = errno;
    return std::unexpected(Error{.message = why("cannot create", tmp), .code = err});
  }
  size_t off = 0;
  while (off < content.size()) {
    const ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      auto err = why("cannot write", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return fail(err);
    }
    off += static_cast<size_t>(n);
  }
  // Closed whether or not the sync worked: the descriptor is not leaked on a failing disk.
  const bool synced = sync_fd(fd) == 0;
  const std::string sync_error = synced ? "" : why("cannot sync", tmp);
  const bool closed = ::close(fd) == 0;
  if (!synced || !closed) {
    auto err = synced ? why("cannot close", tmp) : sync_error;
    ::unlink(tmp.c_str());
    return fail(err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    auto err = why("cannot rename onto", path);
    ::unlink(tmp.c_str());
    return fail(err);
  }
  sync_directory_of(path);
  return {};
}

int sync_fd(int fd) { return g_fsync != nullptr ? g_fsync(fd) : ::fsync(fd); }

void sync_directory_of(const std::string& path) {
  const int dfd = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

size_t remove_stale_temporaries(const std::string& path) {
  const auto slash = path.rfind('/');
  const std::string prefix = (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp.";
  std::error_code ec;
  size_t removed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory_of(path), ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    // `<pid>.<random>` (or `<pid>` from before the random part): kept while that pid runs, as
    // during an upgrade, when the old process still writes.
    const std::string_view rest = std::string_view(name).substr(prefix.size());
    int pid = 0;
    const bool parsed =
        std::from_chars(rest.data(), rest.data() + rest.size(), pid).ec == std::errc();
    const bool running = parsed && pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
    if (running) continue;
    // unlink, not remove_all: a symlink goes, never what it points to.
    if (::unlink(entry.path().c_str()) == 0) ++removed;
  }
  return removed;
}

void set_fsync_for_tests(FsyncFn fsync) { g_fsync = fsync; }

}  // namespace vigil
