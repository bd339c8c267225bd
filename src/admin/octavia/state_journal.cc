#include "admin/octavia/state_journal.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <cerrno>
#include <cstring>
#include <optional>

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

}  // namespace

StateJournal::~StateJournal() {
  if (fd_ >= 0) ::close(fd_);
}

Result<StateJournal::Contents> StateJournal::read(const std::string& path, std::string_view id) {
  Contents out;
  if (::access(path.c_str(), F_OK) != 0 && errno == ENOENT) return out;
  auto text = read_file(path);
  if (!text) return std::unexpected(text.error());
  std::string_view rest = *text;
  const size_t first = rest.find('\n');
  if (first == std::string_view::npos) return out;  // not even its header: nothing was written
  if (id.empty() || id_of(rest.substr(0, first)) != id) {
    rest.remove_prefix(first + 1);
    for (size_t end; (end = rest.find('\n')) != std::string_view::npos;
         rest.remove_prefix(end + 1)) {
      ++out.foreign;
    }
    return out;
  }
  out.current = true;
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

Result<void> StateJournal::open(const std::string& path) {
  if (fd_ >= 0) ::close(fd_);
  path_ = path;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd_ < 0) return fail(why("cannot open", path));
  return {};
}

Result<void> StateJournal::start(const std::string& path, std::string_view id) {
  if (auto opened = open(path); !opened) return opened;
  const std::string first = header(id);
  const bool ok = ::ftruncate(fd_, 0) == 0 && ::lseek(fd_, 0, SEEK_SET) == 0 &&
                  write_all(fd_, first, path) && sync_fd(fd_) == 0;
  if (!ok) {
    const std::string error = why("cannot start", path);
    ::close(fd_);
    fd_ = -1;
    return fail(error);
  }
  sync_directory_of(path);  // when it was created
  size_ = first.size();
  return {};
}

Result<void> StateJournal::resume(const std::string& path, uint64_t good) {
  if (auto opened = open(path); !opened) return opened;
  if (::ftruncate(fd_, static_cast<off_t>(good)) != 0 ||
      ::lseek(fd_, static_cast<off_t>(good), SEEK_SET) < 0 || sync_fd(fd_) != 0) {
    const std::string error = why("cannot resume", path);
    ::close(fd_);
    fd_ = -1;
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
    ::close(fd_);
    fd_ = -1;
  }
  return written;
}

}  // namespace vigil::admin
