// ASCII case for the words vigil reads: header names, schemes, keywords, enum spellings. Pure;
// any thread. Only A-Z and a-z change case: std::tolower follows whatever locale the process was
// given, and a byte >= 0x80 is part of a UTF-8 sequence, never a letter of its own.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

namespace vigil {

constexpr char to_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }
constexpr char to_upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; }

inline std::string lowercase(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(), [](char c) { return to_lower(c); });
  return out;
}

inline std::string uppercase(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(), [](char c) { return to_upper(c); });
  return out;
}

constexpr bool iequals(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) { return to_lower(x) == to_lower(y); });
}

constexpr bool istarts_with(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && iequals(text.substr(0, prefix.size()), prefix);
}

}  // namespace vigil
