// StringMap: a hash map keyed by std::string that is searched with a std::string_view (or a
// literal) without building a std::string first. For maps looked up on hot control-thread paths
// (thousands of health results a second), where std::map's string comparisons showed in profiles.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace vigil {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

template <typename Value>
using StringMap = std::unordered_map<std::string, Value, StringHash, std::equal_to<>>;

using StringSet = std::unordered_set<std::string, StringHash, std::equal_to<>>;

}  // namespace vigil
