// The text side of an HTTP(S) health check: the request bytes, and the result read from the
// answer's status and body. Pure functions, no I/O except read_bearer_token; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "model/check_result.h"
#include "model/config.h"

namespace vigil::health {

// The bytes read from a body, at most; a larger body is cut, never an error in itself.
inline constexpr size_t kMaxBody = 64 * 1024;
inline constexpr size_t kMaxHeader = 16 * 1024;

// "/readyz", "/livez" and "/healthz" without a query gain "?verbose", so that a failing answer
// lists its checks ("[-]etcd failed: reason withheld"); other paths are sent as they are.
std::string request_target(std::string_view path);

// monitor.host when set; else the address (bracketed when IPv6) with ":port" unless the port is
// the scheme's default.
std::string host_header(const model::HealthMonitor& monitor, std::string_view address,
                        uint16_t port, bool tls);

// `METHOD target HTTP/1.1` with Host, User-Agent, Accept, `Connection: close` unless
// `keep_alive` (HTTP/1.1's default is to keep the connection) and, when `bearer_token` is not
// empty, Authorization. Fails on a value that would break the request (CR, LF or another control
// character: header injection through a config or token file).
Result<std::string> build_request(std::string_view method, std::string_view target,
                                  std::string_view host, std::string_view bearer_token,
                                  bool keep_alive);

// Reads the token file afresh (tokens rotate), trimmed of surrounding whitespace.
Result<std::string> read_bearer_token(const std::string& file);

// The result of an answer with `code` and (the start of) `body`: kOk when the code is expected,
// else kBadStatus with the body's first line as detail and its "[-]" lines as failed checks.
model::CheckResult http_result(int code, std::string_view body,
                               const model::ExpectedCodes& expected);

// Lines of a /readyz?verbose body that start with "[-]", trimmed.
std::vector<std::string> failed_checks(std::string_view body);

// The first non-empty line, trimmed, control characters replaced, cut to `max` bytes without
// splitting a UTF-8 sequence.
std::string first_line(std::string_view body, size_t max = 200);

}  // namespace vigil::health
