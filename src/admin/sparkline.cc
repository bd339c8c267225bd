#include "admin/sparkline.h"

#include <fmt/format.h>

#include <algorithm>

#include "admin/text.h"
#include "base/duration.h"

namespace vigil::admin {
namespace {

constexpr int kBar = 2;  // px a minute
constexpr int kWidth = model::MemberHistory::kMinutes * kBar;
constexpr int kHeight = 22;

std::string ms_text(double ms) {
  return ms < 10 ? fmt::format("{:.1f} ms", ms) : fmt::format("{:.0f} ms", ms);
}

std::string open_svg(std::string_view kind, std::string_view title, int height) {
  return fmt::format(R"(<svg class="spark {}" width="{}" height="{}" )"
                     R"(viewBox="0 0 {} {}" role="img" aria-label="{}"><title>{}</title>)",
                     kind, kWidth, height, kWidth, height, title, title);
}

}  // namespace

std::string duration_sparkline(const model::HourView& hour) {
  const double top = std::max<double>(hour.max_ms, 1.0);
  const std::string title = hour.max_ms > 0
                                ? "check duration, last hour: slowest " + ms_text(hour.max_ms)
                                : std::string("check duration, last hour: no checks");
  std::string out = open_svg("duration", title, kHeight);
  out += fmt::format(R"(<rect width="{}" height="{}" fill="#f6f8fa"/>)", kWidth, kHeight);
  std::string points;
  std::string dots;
  auto flush = [&] {
    if (!points.empty()) {
      out += fmt::format(
          R"(<polyline fill="none" stroke="#0969da" stroke-width="1.5" points="{}"/>)", points);
    }
    points.clear();
  };
  for (size_t i = 0; i < hour.minutes.size(); ++i) {
    const model::MinuteView& m = hour.minutes[i];
    if (!m.known || m.sample.checks == 0) {
      flush();
      continue;
    }
    const double x = static_cast<double>(i) * kBar;
    const double y = 2 + (kHeight - 4) * (1 - m.sample.max_ms / top);
    // Each minute is a flat step across its width: a lone minute still shows, as a dash.
    if (points.empty()) points += fmt::format("{:.1f},{:.1f} ", x, y);
    points += fmt::format("{:.1f},{:.1f} ", x + kBar, y);
    if (m.sample.failures > 0) {
      dots += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="1.8" fill="#cf222e"/>)", x + 1, y);
    }
  }
  flush();
  return out + dots + "</svg>";
}

std::string state_sparkline(const model::HourView& hour) {
  constexpr int kStateHeight = 14;
  std::string out = open_svg("state",
                             fmt::format("state, last hour: {} down, {} changes",
                                         downtime_text(hour.down_ms), hour.transitions),
                             kStateHeight);
  for (size_t i = 0; i < hour.minutes.size(); ++i) {
    const model::MinuteView& m = hour.minutes[i];
    std::string_view colour = "#d0d7de";  // not watched
    std::string_view state = "unknown";
    if (m.known && m.down_ms * 2 >= m.length_ms && m.down_ms > 0) {
      colour = "#cf222e", state = "down";
    } else if (m.known && m.down_ms > 0) {
      colour = "#fb8f44", state = "partly-down";
    } else if (m.known && m.sample.failures > 0) {
      colour = "#d4a72c", state = "failing";
    } else if (m.known) {
      colour = "#2da44e", state = "up";
    }
    out += fmt::format(R"(<rect class="{}" x="{}" width="{}" height="{}" fill="{}"/>)", state,
                       i * kBar, kBar, kStateHeight, colour);
  }
  return out + "</svg>";
}

std::string downtime_text(int64_t ms) {
  if (ms > 0 && ms < 1000) return "<1s";
  return short_age(ms / 1000);
}

}  // namespace vigil::admin
