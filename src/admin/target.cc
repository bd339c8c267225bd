#include "admin/target.h"

namespace vigil::admin {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A malformed escape is kept as it is: the caller then simply finds no object of that name.
std::string decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      const int hi = hex_value(text[i + 1]);
      const int lo = hex_value(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += (plus_is_space && c == '+') ? ' ' : c;
  }
  return out;
}

}  // namespace

std::optional<std::string> Target::param(std::string_view name) const {
  for (const auto& [key, value] : query) {
    if (key == name) return value;
  }
  return std::nullopt;
}

Target parse_target(std::string_view target) {
  Target out;
  const size_t q = target.find('?');
  std::string_view path = target.substr(0, q);
  std::string_view query = q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);
  while (!path.empty()) {
    const size_t slash = path.find('/');
    std::string_view segment = path.substr(0, slash);
    if (!segment.empty()) out.segments.push_back(decode(segment, false));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    if (!pair.empty()) {
      const size_t eq = pair.find('=');
      std::string_view key = pair.substr(0, eq);
      std::string_view value = eq == std::string_view::npos ? "" : pair.substr(eq + 1);
      out.query.emplace_back(decode(key, true), decode(value, true));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return out;
}

}  // namespace vigil::admin
