// Target: a request's path and its decoded query parameters, as the routes read them. A value.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/clock.h"

namespace vigil::apisim {

struct Target {
  std::string_view path;
  std::vector<std::pair<std::string, std::string>> query;

  bool has(std::string_view key) const {
    return std::ranges::any_of(query, [&](const auto& kv) { return kv.first == key; });
  }
  std::vector<std::string> all(std::string_view key) const {
    std::vector<std::string> values;
    for (const auto& [k, v] : query) {
      if (k == key) values.push_back(v);
    }
    return values;
  }
  std::optional<std::string> get(std::string_view key) const {
    auto values = all(key);
    if (values.empty()) return std::nullopt;
    return values.back();
  }
  // "true" or "1", as kube-apiserver reads ?watch= and its kind.
  bool is_true(std::string_view key) const {
    const auto value = get(key);
    return value && (*value == "true" || *value == "1");
  }
  // A whole number of seconds such as ?timeoutSeconds=N; zero when absent or not positive.
  Duration seconds(std::string_view key) const;
};

// Splits "/path?a=b&c" and percent-decodes the parameters; path refers into `target`.
Target parse_target(std::string_view target);

}  // namespace vigil::apisim
