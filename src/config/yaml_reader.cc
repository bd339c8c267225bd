#include "config/yaml_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "base/ascii.h"
#include "base/duration.h"
#include "config/address.h"
#include "config/suggest.h"

namespace vigil::config {
namespace {

bool has_control_char(std::string_view text) {
  return std::ranges::any_of(
      text, [](char c) { return std::iscntrl(static_cast<unsigned char>(c)) && c != '\t'; });
}

}  // namespace

std::string Field::path() const {
  if (section.empty()) return std::string(key);
  return std::string(section) + "." + std::string(key);
}

void YamlReader::error(int line, std::string message) {
  out_.push_back(make_error(at(line), std::move(message)));
}

void YamlReader::warning(int line, std::string message) {
  out_.push_back(make_warning(at(line), std::move(message)));
}

int YamlReader::line_of(const YamlNode& node, int fallback) {
  return node.line() > 0 ? node.line() : fallback;
}

std::string YamlReader::describe(const YamlNode& node) {
  switch (node.kind()) {
    case YamlNode::Kind::kSequence:
      return "a list";
    case YamlNode::Kind::kMap:
      return "a map";
    case YamlNode::Kind::kScalar: {
      std::string text = node.scalar();
      if (text.size() > 40) text = text.substr(0, 37) + "...";
      for (char& c : text) {
        if (std::iscntrl(static_cast<unsigned char>(c))) c = '?';
      }
      return "\"" + text + "\"";
    }
    default:
      return "nothing";
  }
}

void YamlReader::unknown_key(int line, std::string_view key, std::string_view section,
                             const std::vector<std::string_view>& known) {
  const std::string where = section.empty() ? "at top level" : "in " + std::string(section);
  std::string shown(key.substr(0, 64));
  for (char& c : shown) {
    if (std::iscntrl(static_cast<unsigned char>(c))) c = '?';
  }
  error(line, "unknown key \"" + shown + "\" " + where + did_you_mean(key, known));
}

std::optional<std::string> YamlReader::scalar(const Field& f, std::string_view expected) {
  if (!f.value.is_scalar()) {
    error(f.line, f.path() + ": expected " + std::string(expected) + ", got " + describe(f.value));
    return std::nullopt;
  }
  return f.value.scalar();
}

void YamlReader::set_string(const Field& f, std::string& out) {
  auto text = scalar(f, "a string");
  if (!text) return;
  if (text->empty()) {
    error(f.line, f.path() + ": must not be empty");
  } else if (has_control_char(*text)) {
    error(f.line, f.path() + ": must not contain control characters");
  } else {
    out = std::move(*text);
  }
}

void YamlReader::set_name(const Field& f, std::string& out) {
  auto text = scalar(f, "a name");
  if (!text) return;
  if (const std::string problem = name_problem(*text); !problem.empty()) {
    error(f.line, f.path() + " " + describe(f.value) + " " + problem);
  }
  out = std::move(*text);
}

void YamlReader::set_bool(const Field& f, bool& out) {
  auto text = scalar(f, "true or false");
  if (!text) return;
  const std::string word = lowercase(*text);
  if (word == "true" || word == "yes" || word == "on") {
    out = true;
  } else if (word == "false" || word == "no" || word == "off") {
    out = false;
  } else {
    error(f.line, f.path() + ": expected true or false, got " + describe(f.value));
  }
}

void YamlReader::set_duration_or_zero(const Field& f, Duration& out, Duration max) {
  auto text = scalar(f, "a duration like 200ms, or 0s to disable");
  if (!text) return;
  if (*text == "0") {  // "0" needs no unit: zero is zero
    out = Duration::zero();
    return;
  }
  auto d = parse_duration(*text);
  if (!d) {
    error(f.line, f.path() + ": " + d.error().message);
  } else if (*d > max) {
    error(f.line, f.path() + ": " + *text + " is too long; the limit is " + format_duration(max));
  } else {
    out = *d;
  }
}

void YamlReader::set_duration(const Field& f, Duration& out, Duration max) {
  auto text = scalar(f, "a duration like 500ms, 5s or 1m");
  if (!text) return;
  auto d = parse_duration(*text);
  if (!d) {
    error(f.line, f.path() + ": " + d.error().message);
  } else if (*d <= Duration::zero()) {
    error(f.line, f.path() + ": must be greater than 0");
  } else if (*d > max) {
    error(f.line, f.path() + ": " + *text + " is too long; the limit is " + format_duration(max));
  } else {
    out = *d;
  }
}

std::optional<long long> YamlReader::integer(const Field& f, long long low, long long high) {
  const std::string expected =
      "an integer from " + std::to_string(low) + " to " + std::to_string(high);
  auto text = scalar(f, expected);
  if (!text) return std::nullopt;
  long long value = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (text->empty() || ec != std::errc() || ptr != end || value < low || value > high) {
    error(f.line, f.path() + ": expected " + expected + ", got " + describe(f.value));
    return std::nullopt;
  }
  return value;
}

bool YamlReader::expect_list(const Field& f, std::string_view what) {
  if (f.value.is_sequence()) return true;
  error(f.line, f.path() + ": expected " + std::string(what) + ", got " + describe(f.value));
  return false;
}

}  // namespace vigil::config
