// A one-shot HTTP/1.1 GET or PUT to vigil's admin API with a single deadline over resolve, connect,
// send and receive. Blocking (it runs a private io_context); for the CLI's one thread.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "base/error.h"

namespace vigil::cli {

struct AdminUrl {
  std::string host;    // "127.0.0.1", "::1", "vigil.example"
  std::string port;    // "8404"
  std::string prefix;  // "" or a path prefix such as "/vigil", without a trailing '/'
  std::string socket;  // "unix:PATH": the admin Unix socket's path (host and port unused)
};

// "http://127.0.0.1:8404", "http://[::1]:8404/", "127.0.0.1:8404" (http assumed), or
// "unix:/run/vigil/admin.sock" (admin.socket). https is refused with a reason: the admin API
// speaks plain HTTP.
Result<AdminUrl> parse_admin_url(std::string_view url);

// Where a client verb calls without --admin or VIGIL_ADMIN, from the local config: its
// admin.socket when there is one that this user may connect to (`may_connect`: net/unix_socket.h),
// since the socket names the user by the kernel; else its admin.listen; else 127.0.0.1:8404.
std::string default_admin_url(std::string_view listen, std::string_view socket, bool may_connect);

struct HttpReply {
  int status = 0;
  std::string body;
};

// GET prefix+path with `X-Auth-Token: token` (when not empty). The error is the bare reason
// ("Connection refused", "no answer within 5s"), with its errno in `code` where there is one
// (ECONNREFUSED; ETIMEDOUT for the deadline); callers add which daemon they tried.
Result<HttpReply> http_get(const AdminUrl& url, std::string_view path, std::string_view token,
                           std::chrono::milliseconds timeout);
// PUT prefix+path with a JSON body; errors as http_get().
Result<HttpReply> http_put(const AdminUrl& url, std::string_view path, std::string_view token,
                           std::string_view json_body, std::chrono::milliseconds timeout);
// POST prefix+path with a JSON body; errors as http_get().
Result<HttpReply> http_post(const AdminUrl& url, std::string_view path, std::string_view token,
                            std::string_view json_body, std::chrono::milliseconds timeout);

// How hold_connection() ended.
enum class HoldEnd {
  kQuiet,    // `limit` passed with the connection open (or still connecting)
  kClosed,   // the daemon closed it, or it failed otherwise
  kRefused,  // nothing listens there (ECONNREFUSED)
};
// Connects to the admin API and holds the connection, sending nothing, until the daemon closes it
// or `limit` passes. When vigil dies its kernel closes the connection at once, so the holder
// learns of the death without asking (`vigil health --track-file`).
HoldEnd hold_connection(const AdminUrl& url, std::chrono::milliseconds limit);

}  // namespace vigil::cli
