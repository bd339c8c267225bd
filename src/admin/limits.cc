#include "admin/limits.h"

#include <cctype>

namespace vigil::admin {

namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> framing_error(size_t transfer_encodings,
                                         std::string_view transfer_encoding,
                                         bool has_content_length) {
  if (transfer_encodings == 0) return std::nullopt;
  if (has_content_length) return "both Transfer-Encoding and Content-Length";
  if (transfer_encodings > 1 || !equals_ignoring_case(transfer_encoding, "chunked")) {
    return "Transfer-Encoding other than chunked";
  }
  return std::nullopt;
}

}  // namespace vigil::admin
