#include "testing/apisim/target.h"

#include <charconv>

namespace vigil::apisim {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
               hex_value(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

Duration Target::seconds(std::string_view key) const {
  const std::string text = get(key).value_or("");
  int value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value > 0 ? std::chrono::seconds(value) : Duration::zero();
}

Target parse_target(std::string_view target) {
  Target t;
  const auto q = target.find('?');
  t.path = target.substr(0, q);
  if (q == std::string_view::npos) return t;
  std::string_view rest = target.substr(q + 1);
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const std::string_view part = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    if (part.empty()) continue;
    const auto eq = part.find('=');
    t.query.emplace_back(percent_decode(part.substr(0, eq)),
                         eq == std::string_view::npos ? "" : percent_decode(part.substr(eq + 1)));
  }
  return t;
}

}  // namespace vigil::apisim
