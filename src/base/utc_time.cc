#include "base/utc_time.h"

#include <cstdio>
#include <ctime>
#include <string>

namespace vigil {

std::optional<int64_t> parse_utc_seconds(std::string_view text) {
  std::tm tm{};
  char zone = 0;
  const std::string s(text);
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &zone) != 7 ||
      zone != 'Z') {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(::timegm(&tm));
}

}  // namespace vigil
