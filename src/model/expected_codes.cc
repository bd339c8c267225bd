#include "model/expected_codes.h"

#include <charconv>

namespace vigil::model {
namespace {

Result<int> parse_code(std::string_view text, std::string_view whole) {
  int code = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), code);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return fail("invalid expected_codes \"" + std::string(whole) +
                "\": expected codes like 200, 200,202 or 200-204");
  }
  if (code < 100 || code > 599) {
    return fail("invalid expected_codes \"" + std::string(whole) + "\": " + std::to_string(code) +
                " is not an HTTP status code (100-599)");
  }
  return code;
}

}  // namespace

Result<ExpectedCodes> ExpectedCodes::parse(std::string_view text) {
  ExpectedCodes out;
  out.ranges_.clear();
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    const size_t dash = item.find('-');
    auto low = parse_code(item.substr(0, dash), text);
    if (!low) return std::unexpected(low.error());
    int high = *low;
    if (dash != std::string_view::npos) {
      auto h = parse_code(item.substr(dash + 1), text);
      if (!h) return std::unexpected(h.error());
      high = *h;
      if (high < *low) {
        return fail("invalid expected_codes \"" + std::string(text) + "\": range " +
                    std::string(item) + " runs backwards");
      }
    }
    out.ranges_.push_back({*low, high});
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

bool ExpectedCodes::contains(int code) const {
  for (const Range& r : ranges_) {
    if (code >= r.low && code <= r.high) return true;
  }
  return false;
}

std::string ExpectedCodes::to_string() const {
  std::string out;
  for (const Range& r : ranges_) {
    if (!out.empty()) out += ",";
    out += std::to_string(r.low);
    if (r.high != r.low) out += "-" + std::to_string(r.high);
  }
  return out;
}

}  // namespace vigil::model
