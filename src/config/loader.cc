#include "config/loader.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "config/haproxy/loader.h"

namespace vigil::config {
namespace {

// A config is a few kilobytes; anything this large is a mistake (or /dev/zero).
constexpr size_t kMaxConfigBytes = 16 * 1024 * 1024;

struct FileText {
  std::string text;
  std::string error;  // empty on success
};

FileText read_whole_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {.text = "", .error = std::strerror(errno)};
  FileText out;
  std::array<char, 65536> buffer;
  while (true) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      out.error = std::strerror(errno);
      break;
    }
    if (n == 0) break;
    out.text.append(buffer.data(), static_cast<size_t>(n));
    if (out.text.size() > kMaxConfigBytes) {
      out.error = "larger than 16 MiB; is this really a config?";
      break;
    }
  }
  ::close(fd);
  return out;
}

// 1-based number of the first line that is neither blank nor a comment, and its first word.
std::pair<int, std::string_view> first_word(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 byte order mark
  int line = 0;
  while (!text.empty()) {
    ++line;
    const size_t eol = text.find('\n');
    std::string_view row = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    const size_t start = row.find_first_not_of(" \t\r");
    if (start == std::string_view::npos || row[start] == '#') continue;
    row.remove_prefix(start);
    return {line, row.substr(0, row.find_first_of(" \t\r"))};
  }
  return {0, {}};
}

}  // namespace

Format detect_format(std::string_view text) {
  static constexpr std::string_view kHaproxySections[] = {
      "global", "defaults", "frontend", "backend", "listen", "peers", "resolvers", "userlist"};
  const std::string_view word = first_word(text).second;
  for (std::string_view section : kHaproxySections) {
    if (word == section) return Format::kHaproxyCfg;
  }
  return Format::kYaml;
}

LoadResult load_file(const std::string& path) {
  FileText file = read_whole_file(path);
  if (!file.error.empty()) {
    LoadResult result;
    result.diagnostics.push_back(
        make_error({.file = path, .line = 0}, "cannot read " + path + ": " + file.error));
    return result;
  }
  if (detect_format(file.text) == Format::kHaproxyCfg) return load_haproxy_cfg(file.text, path);
  return load_yaml(file.text, path);
}

}  // namespace vigil::config
