#include "admin/limits.h"

#include "base/ascii.h"

namespace vigil::admin {

std::optional<std::string> framing_error(size_t transfer_encodings,
                                         std::string_view transfer_encoding,
                                         bool has_content_length) {
  if (transfer_encodings == 0) return std::nullopt;
  if (has_content_length) return "both Transfer-Encoding and Content-Length";
  if (transfer_encodings > 1 || !iequals(transfer_encoding, "chunked")) {
    return "Transfer-Encoding other than chunked";
  }
  return std::nullopt;
}

}  // namespace vigil::admin
