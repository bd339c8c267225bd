// The admin API's defences against clients that hold connections without finishing requests
// (slowloris) or frame requests ambiguously (request smuggling). Pure; any thread. The server
// (server.cc) applies them on the control thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace vigil::admin {

// Why a request head's framing is refused (answered 400, then closed), nullopt when it is
// sound. `transfer_encodings` counts Transfer-Encoding fields, `transfer_encoding` is the first;
// only exactly `chunked` is accepted, and never together with Content-Length (RFC 9112 6.1:
// a proxy in front could frame such a request differently from us).
std::optional<std::string> framing_error(size_t transfer_encodings,
                                         std::string_view transfer_encoding,
                                         bool has_content_length);

}  // namespace vigil::admin
