// Whether bytes are well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past
// U+10FFFF). vigil's YAML config is UTF-8, so text that is not cannot be written into one.
#pragma once

#include <cstddef>
#include <string_view>

namespace vigil {

// The offset of the first byte that does not start or continue a well-formed sequence, or
// text.size() when all of it is well-formed.
std::size_t utf8_invalid_at(std::string_view text);

inline bool is_utf8(std::string_view text) { return utf8_invalid_at(text) == text.size(); }

}  // namespace vigil
