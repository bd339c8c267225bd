// Logging for the control plane: one line per event to stderr, with a level and a UTC timestamp
// (systemd adds its own, but a plain terminal or a test log does not). When stderr is the journal
// (JOURNAL_STREAM names it), each line starts with its syslog priority instead (`<4>`), so that
// `journalctl -p warning` finds the warnings. Thread-safe: each call writes its line with a single
// write(2). Never called per packet on the data plane.
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <string>
#include <string_view>

namespace vigil::log {

enum class Level { kDebug, kInfo, kWarn, kError };

void set_level(Level level);
// JOURNAL_STREAM ("DEVICE:INODE", set by systemd) names the file `fd` is: stderr is the journal.
bool is_journal_stream(const char* journal_stream, int fd);
// One line as write() puts it out: "<4>message\n" for the journal, else
// "2026-12-01T08:00:00.123Z warn message\n".
std::string format_line(Level level, std::string_view message, bool journal,
                        std::chrono::system_clock::time_point now);
bool enabled(Level level);
void write(Level level, std::string_view message);

template <typename... Args>
void debug(fmt::format_string<Args...> f, Args&&... args) {
  if (enabled(Level::kDebug)) write(Level::kDebug, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void info(fmt::format_string<Args...> f, Args&&... args) {
  if (enabled(Level::kInfo)) write(Level::kInfo, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void warn(fmt::format_string<Args...> f, Args&&... args) {
  if (enabled(Level::kWarn)) write(Level::kWarn, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void error(fmt::format_string<Args...> f, Args&&... args) {
  write(Level::kError, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace vigil::log
