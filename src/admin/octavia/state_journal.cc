#include "admin/octavia/state_journal.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/file.h"

namespace vigil::admin {
namespace {

std::string why(std::string_view what, const std::string& path) {
  return fmt::format("{} {}: {}", what, path, std::strerror(errno));
}

std::string header(std::string_view id) {
  return "{\"journal\":" + boost::json::serialize(boost::json::string(id)) + "}\n";
}

// The id a first line names, or none when it is no header.
std::optional<std::string> id_of(std::string_view line) {
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(line, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const boost::json::value* id = v.as_object().if_contains("journal");
  if (id == nullptr || !id->is_string()) return std::nullopt;
  return std::string(id->as_string());
}

Result<void> write_all(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(why("cannot write", path));
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

StateJournal::~StateJournal() {
  close_fd(fd_);
  close_fd(next_fd_);
}

Result<StateJournal::Contents> StateJournal::read(const std::string& path) {
  Contents out;
  if (::access(path.c_str(), F_OK) != 0 && errno == ENOENT) return out;
  auto text = read_file(path);
  if (!text) return std::unexpected(text.error());
  out.exists = true;
  std::string_view rest = *text;
  const size_t first = rest.find('\n');
  if (first == std::string_view::npos) return out;  // not even its header: nothing was written
  out.id = id_of(rest.substr(0, first));
  rest.remove_prefix(first + 1);
  out.good = first + 1;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    if (end == std::string_view::npos) {
      out.torn = true;
      break;
    }
    out.records.emplace_back(rest.substr(0, end));
    rest.remove_prefix(end + 1);
    out.good += end + 1;
  }
  return out;
}

Result<void> StateJournal::prepare(const std::string& path, std::string_view id) {
  close_fd(next_fd_);
  next_path_ = next_path_for(path);
  path_ = path;
  next_fd_ =
      ::open(next_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (next_fd_ < 0) return fail(why("cannot open", next_path_));
  const std::string first = header(id);
  if (!write_all(next_fd_, first, next_path_) || sync_fd(next_fd_) != 0) {
    const std::string error = why("cannot start", next_path_);
    abandon();
    return fail(error);
  }
  next_size_ = first.size();
  return {};
}

Result<void> StateJournal::install() {
  if (next_fd_ < 0) return fail(fmt::format("{} was not prepared", next_path_));
  // The state file naming it is in place: from here on, the journal is this file.
  close_fd(fd_);
  fd_ = next_fd_;
  next_fd_ = -1;
  size_ = next_size_;
  if (::rename(next_path_.c_str(), path_.c_str()) != 0) {
    // Appends still reach the file (its descriptor is open), and a start finds it as the `.next`
    // of the state file that names it: nothing is lost, but say so.
    return fail(why("cannot rename " + next_path_ + " onto", path_));
  }
  sync_directory_of(path_);
  return {};
}

void StateJournal::abandon() {
  close_fd(next_fd_);
  if (!next_path_.empty()) ::unlink(next_path_.c_str());
}

Result<void> StateJournal::resume(const std::string& path, uint64_t good,
                                  const std::string& journal) {
  close_fd(fd_);
  path_ = journal;
  if (path != journal) {
    // The `.next` of a state file whose rename was the last thing done before a crash.
    if (::rename(path.c_str(), journal.c_str()) != 0)
      return fail(why("cannot rename onto", journal));
    sync_directory_of(journal);
  }
  fd_ = ::open(journal.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd_ < 0) return fail(why("cannot open", journal));
  if (::ftruncate(fd_, static_cast<off_t>(good)) != 0 ||
      ::lseek(fd_, static_cast<off_t>(good), SEEK_SET) < 0 || sync_fd(fd_) != 0) {
    const std::string error = why("cannot resume", journal);
    close_fd(fd_);
    return fail(error);
  }
  size_ = good;
  return {};
}

Result<void> StateJournal::append(std::string_view record) {
  if (fd_ < 0) return fail(fmt::format("{} is not open", path_));
  auto written = write_all(fd_, record, path_);
  if (written && sync_fd(fd_) != 0) written = fail(why("cannot sync", path_));
  if (written) {
    size_ += record.size();
    return {};
  }
  // What reached the file of a write that failed must not become a record: cut it off, or give
  // the journal up until it starts over.
  if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0 ||
      ::lseek(fd_, static_cast<off_t>(size_), SEEK_SET) < 0) {
    close_fd(fd_);
  }
  return written;
}

bool StateJournal::gone() const {
  if (fd_ < 0) return false;
  struct stat open {};
  struct stat named {};
  if (::fstat(fd_, &open) != 0) return false;
  if (open.st_nlink == 0) return true;
  return ::stat(path_.c_str(), &named) != 0 || named.st_ino != open.st_ino ||
         named.st_dev != open.st_dev;
}

}  // namespace vigil::admin
