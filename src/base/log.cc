#include "base/log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "base/log_event.h"

namespace vigil::log {
namespace {

std::atomic<Level> g_level{Level::kInfo};
std::atomic<Format> g_format{Format::kText};

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
void set_format(Format f) { g_format.store(f, std::memory_order_relaxed); }
Format format() { return g_format.load(std::memory_order_relaxed); }

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

std::string utc_millis(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::floor<std::chrono::milliseconds>(t);
  const std::time_t secs =
      std::chrono::system_clock::to_time_t(std::chrono::floor<std::chrono::seconds>(ms));
  const auto millis = ms.time_since_epoch().count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
}

std::string format_line(Level level, std::string_view message, bool journal,
                        std::chrono::system_clock::time_point now) {
  if (journal) return fmt::format("<{}>{}\n", priority(level), message);
  return fmt::format("{} {} {}\n", utc_millis(now), level_name(level), message);
}

std::string format_json_line(Level level, std::string_view event, std::string_view message,
                             const boost::json::object* fields, bool journal,
                             std::chrono::system_clock::time_point now) {
  boost::json::object o{{"time", utc_millis(now)},
                        {"level", level_name(level)},
                        {"event", event},
                        {"message", message}};
  if (fields != nullptr) {
    for (const auto& [key, value] : *fields) o[key] = value;
  }
  std::string line = journal ? fmt::format("<{}>", priority(level)) : std::string();
  line += boost::json::serialize(o);
  line += '\n';
  return line;
}

namespace {

void put(const std::string& line) {
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

}  // namespace

void write(Level level, std::string_view message) {
  const auto now = std::chrono::system_clock::now();
  put(format() == Format::kJson
          ? format_json_line(level, "log", message, nullptr, stderr_is_journal(), now)
          : format_line(level, message, stderr_is_journal(), now));
}

void event(Level level, std::string_view event, std::string_view message,
           const boost::json::object& fields) {
  if (!enabled(level) && level != Level::kError) return;
  const auto now = std::chrono::system_clock::now();
  put(format() == Format::kJson
          ? format_json_line(level, event, message, &fields, stderr_is_journal(), now)
          : format_line(level, message, stderr_is_journal(), now));
}

}  // namespace vigil::log
