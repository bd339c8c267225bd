#include "base/log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

namespace vigil::log {
namespace {

std::atomic<Level> g_level{Level::kInfo};

std::string_view level_name(Level level) {
  switch (level) {
    case Level::kDebug:
      return "debug";
    case Level::kInfo:
      return "info";
    case Level::kWarn:
      return "warn";
    case Level::kError:
      return "error";
  }
  return "?";
}

// sd-daemon(3)'s priorities, as the journal reads them from a line's "<N>" prefix.
int priority(Level level) {
  switch (level) {
    case Level::kDebug:
      return 7;
    case Level::kInfo:
      return 6;
    case Level::kWarn:
      return 4;
    case Level::kError:
      return 3;
  }
  return 6;
}

bool stderr_is_journal() {
  static const bool journal = is_journal_stream(std::getenv("JOURNAL_STREAM"), STDERR_FILENO);
  return journal;
}

}  // namespace

void set_level(Level level) { g_level.store(level, std::memory_order_relaxed); }

bool enabled(Level level) { return level >= g_level.load(std::memory_order_relaxed); }

bool is_journal_stream(const char* journal_stream, int fd) {
  if (journal_stream == nullptr) return false;
  unsigned long long dev = 0;
  unsigned long long ino = 0;
  if (std::sscanf(journal_stream, "%llu:%llu", &dev, &ino) != 2) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0) return false;
  return st.st_dev == dev && st.st_ino == ino;
}

std::string format_line(Level level, std::string_view message, bool journal,
                        std::chrono::system_clock::time_point now) {
  if (journal) return fmt::format("<{}>{}\n", priority(level), message);
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z {} {}\n", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis,
                     level_name(level), message);
}

void write(Level level, std::string_view message) {
  const std::string line =
      format_line(level, message, stderr_is_journal(), std::chrono::system_clock::now());
  // One write per line keeps lines whole when several threads log at once.
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace vigil::log
