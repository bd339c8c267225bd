#include "base/duration.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <utility>

namespace vigil {
namespace {

struct Unit {
  std::string_view suffix;
  Duration size;
};

// Longest suffixes first so that "ms" is not read as "m" followed by garbage.
constexpr Unit kUnits[] = {
    {"ns", std::chrono::nanoseconds(1)},  {"us", std::chrono::microseconds(1)},
    {"ms", std::chrono::milliseconds(1)}, {"s", std::chrono::seconds(1)},
    {"m", std::chrono::minutes(1)},       {"h", std::chrono::hours(1)},
};

constexpr double kLargest = 1e18;  // nanoseconds

}  // namespace

Result<Duration> parse_duration(std::string_view text) {
  const std::string original(text);
  if (text.empty()) return fail("empty duration");
  Duration total{0};
  while (!text.empty()) {
    size_t digits = 0;
    while (digits < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) {
      ++digits;
    }
    if (digits == 0) {
      return fail("invalid duration \"" + original + "\": expected a number, like 500ms, 5s or 1m");
    }
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + digits, value);
    if (ec != std::errc() || end != text.data() + digits) {
      return fail("invalid duration \"" + original + "\": bad number");
    }
    text.remove_prefix(digits);
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (text.starts_with(u.suffix) &&
          (text.size() == u.suffix.size() ||
           !std::isalpha(static_cast<unsigned char>(text[u.suffix.size()])))) {
        unit = &u;
        break;
      }
    }
    if (unit == nullptr) {
      return fail("invalid duration \"" + original +
                  "\": a unit is required (ns, us, ms, s, m or h), like 500ms or 5s");
    }
    text.remove_prefix(unit->suffix.size());
    // The bound is on the sum, not on each part: "5000000h5000000h..." must not wrap around to
    // a few seconds. 1e18 ns (31 years) is far above every limit the config sets.
    const double nanos = value * static_cast<double>(unit->size.count());
    if (!std::isfinite(nanos) || nanos > kLargest - static_cast<double>(total.count())) {
      return fail("invalid duration \"" + original + "\": too large");
    }
    total += Duration(static_cast<Duration::rep>(std::llround(nanos)));
  }
  return total;
}

std::string format_duration(Duration d) {
  using namespace std::chrono;
  if (d == Duration::zero()) return "0s";
  std::string out;
  if (d < Duration::zero()) {
    out = "-";
    d = -d;
  }
  if (d % milliseconds(1) != Duration::zero()) {
    if (d % microseconds(1) == Duration::zero()) {
      return out + std::to_string(duration_cast<microseconds>(d).count()) + "us";
    }
    return out + std::to_string(d.count()) + "ns";
  }
  if (d < seconds(1) || d % seconds(1) != Duration::zero()) {
    if (d < seconds(1)) return out + std::to_string(duration_cast<milliseconds>(d).count()) + "ms";
    // 1500ms reads better as 1.5s.
    const auto ms = duration_cast<milliseconds>(d).count();
    std::string frac = std::to_string(ms % 1000);
    frac.insert(0, 3 - frac.size(), '0');
    while (frac.back() == '0') frac.pop_back();
    return out + std::to_string(ms / 1000) + "." + frac + "s";
  }
  auto secs = duration_cast<seconds>(d).count();
  const auto h = secs / 3600;
  const auto m = (secs % 3600) / 60;
  const auto s = secs % 60;
  if (h) out += std::to_string(h) + "h";
  if (m) out += std::to_string(m) + "m";
  if (s) out += std::to_string(s) + "s";
  return out;
}

std::string short_age(int64_t s) {
  if (s < 0) s = 0;
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{}s", s / 60, s % 60);
  if (s < 86400) return fmt::format("{}h{}m", s / 3600, s % 3600 / 60);
  return fmt::format("{}d{}h", s / 86400, s % 86400 / 3600);
}

}  // namespace vigil
