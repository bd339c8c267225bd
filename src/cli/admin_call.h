// The client verbs' calls to a running daemon (GET /v1/status, PUT of a member override) with
// what to tell the user when they fail: the message and the exit code (2: unreachable or a bad
// URL; 1: the daemon refused the token or answered an error). Blocking; the CLI's one thread.
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "cli/commands.h"

namespace vigil::cli {

template <typename T>
using Called = std::expected<T, Failure>;

// The body of GET /v1/status.
Called<std::string> fetch_status(const ClientOptions& options);
// The body of a 200 answer to GET `path` (with its query).
Called<std::string> get_json(const ClientOptions& options, std::string_view path);
// The body of a 200 answer to PUT `path` with `json_body`.
Called<std::string> put_json(const ClientOptions& options, std::string_view path,
                             std::string_view json_body);
// The body of a 200 answer to POST `path` with `json_body`.
Called<std::string> post_json(const ClientOptions& options, std::string_view path,
                              std::string_view json_body);

}  // namespace vigil::cli
