#include "testing/apisim/selector.h"

#include <algorithm>
#include <utility>

namespace vigil::apisim {
namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

bool valid_key(std::string_view key) {
  return !key.empty() && std::ranges::none_of(key, [](char c) {
    return c == ' ' || c == '(' || c == ')' || c == '=' || c == '!' || c == ',';
  });
}

}  // namespace

Result<Selector> Selector::parse(std::string_view text) {
  Selector selector;
  while (!trimmed(text).empty()) {
    const auto comma = text.find(',');
    const std::string_view part = trimmed(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    Requirement r;
    std::string_view key = part;
    if (const auto ne = part.find("!="); ne != std::string_view::npos) {
      r.op = Op::kNotEquals;
      key = part.substr(0, ne);
      r.value = trimmed(part.substr(ne + 2));
    } else if (const auto eq = part.find('='); eq != std::string_view::npos) {
      r.op = Op::kEquals;
      key = part.substr(0, eq);
      const std::string_view value = part.substr(eq + 1);
      r.value = trimmed(value.starts_with('=') ? value.substr(1) : value);  // "==" too
    } else if (part.starts_with('!')) {
      r.op = Op::kNotExists;
      key = part.substr(1);
    } else {
      r.op = Op::kExists;
    }
    key = trimmed(key);
    if (!valid_key(key) || r.value.find_first_of(" ()=!") != std::string::npos) {
      return fail("unable to parse requirement \"" + std::string(part) +
                  "\": only equality-based selectors (a=b, a!=b, a, !a) are supported");
    }
    r.key = std::string(key);
    selector.requirements_.push_back(std::move(r));
  }
  return selector;
}

bool Selector::matches(const std::map<std::string, std::string, std::less<>>& labels) const {
  return std::ranges::all_of(requirements_, [&](const Requirement& r) {
    const auto it = labels.find(r.key);
    switch (r.op) {
      case Op::kEquals:
        return it != labels.end() && it->second == r.value;
      case Op::kNotEquals:  // as in Kubernetes: a missing label is not equal
        return it == labels.end() || it->second != r.value;
      case Op::kExists:
        return it != labels.end();
      case Op::kNotExists:
        return it == labels.end();
    }
    return false;
  });
}

void Selector::require(std::string key, std::string value) {
  requirements_.push_back({std::move(key), Op::kEquals, std::move(value)});
}

}  // namespace vigil::apisim
