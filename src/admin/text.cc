#include "admin/text.h"

#include <fmt/format.h>

#include <ctime>

#include "base/duration.h"

namespace vigil::admin {
namespace {

std::tm utc(model::WallTime t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return tm;
}

}  // namespace

std::string iso8601_utc(model::WallTime t) { return octavia_time(t) + "Z"; }

std::string octavia_time(model::WallTime t) {
  const std::tm tm = utc(t);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::string octavia_time_precise(model::WallTime t) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch() %
                                                                            std::chrono::seconds(1))
                          .count();
  return fmt::format("{}.{:06}", octavia_time(t), micros);
}

std::string_view health_name(model::Health h) {
  switch (h) {
    case model::Health::kUnchecked:
      return "unchecked";
    case model::Health::kUp:
      return "up";
    case model::Health::kDown:
      return "down";
  }
  return "?";
}

std::string host_port(std::string_view host, uint16_t port) {
  if (host.find(':') != std::string_view::npos) return fmt::format("[{}]:{}", host, port);
  return fmt::format("{}:{}", host, port);
}

int64_t seconds_between(model::WallTime since, model::WallTime now) {
  if (!is_set(since) || now <= since) return 0;
  return std::chrono::duration_cast<std::chrono::seconds>(now - since).count();
}

std::string override_text(const model::AdminOverride& o, model::WallTime now) {
  return fmt::format("{}, set {} ago by {}", model::describe(o),
                     short_age(seconds_between(o.set_at, now)), o.by.empty() ? "?" : o.by);
}

}  // namespace vigil::admin
