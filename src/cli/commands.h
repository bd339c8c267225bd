// vigil's client commands (`vigil members`, `vigil status`): they ask a running daemon's admin API
// for GET /v1/status and print it. Blocking; called from main() on the CLI's only thread.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "base/error.h"

namespace vigil::cli {

struct ClientOptions {
  std::string admin_url;  // "http://127.0.0.1:8404"; "127.0.0.1:8404" is read as http
  std::string token;
};

// Exit codes: 0 ok, 1 the daemon answered an error (or the pool does not exist), 2 the daemon
// cannot be reached or the URL is unusable. Results go to `out`, messages to `err`.
int run_members(const ClientOptions& options, std::optional<std::string> pool, bool json,
                std::ostream& out, std::ostream& err);
int run_status(const ClientOptions& options, bool json, std::ostream& out, std::ostream& err);

// Pure formatting of the /v1/status JSON text, testable without a daemon.
// A box-drawn table like `openstack loadbalancer member list`, with the last check's reason and
// the time in state. An unknown pool is an error that lists the pools there are.
Result<std::string> format_members_table(std::string_view status_json,
                                         std::optional<std::string> pool);
// A JSON array of Octavia member objects plus pool, health, in_rotation and check; one per line.
Result<std::string> format_members_json(std::string_view status_json,
                                        std::optional<std::string> pool);
// The load balancer > listener > pool > member tree, one line per object.
Result<std::string> format_status_tree(std::string_view status_json);
// Octavia's status tree, {"statuses": {"loadbalancer": ...}}, indented.
Result<std::string> format_status_tree_json(std::string_view status_json);

}  // namespace vigil::cli
