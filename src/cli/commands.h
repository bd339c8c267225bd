// vigil's client commands (`vigil members`, `vigil status`, `vigil member
// drain|maint|ready|weight`, `vigil sessions`, `vigil reload`): they ask a running daemon's admin
// API over HTTP and print the answer. Blocking; called from main() on the CLI's only thread.
#pragma once

#include <chrono>
#include <expected>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "base/error.h"
#include "cli/health_vips.h"

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

// `vigil health`: GET /readyz (no token, 1 s in all) and one line, "ready: ok api: 3/3 members
// usable". Exit codes: 0 the daemon answered (with `exit_code`: answered ready), 1 with
// `exit_code` anything else (not serving, not ready, unreachable), 2 a bad URL, or unreachable
// without `exit_code`.
int run_health(const ClientOptions& options, bool exit_code, std::ostream& out, std::ostream& err);
// `vigil health --track-file FILE`: runs until it is stopped (or FILE cannot be written: exit 1;
// a bad URL: exit 2), keeping FILE at 0 while the daemon is ready and 1 while it is not, for
// keepalived's track_file. Between checks it holds a connection to the daemon, so that the
// daemon's death is seen when its kernel closes it; health_track.h decides. An empty `file`
// writes no track file. With `vips.file`, it keeps that file too (vips_keeper.h).
int run_health_track(const ClientOptions& options, const std::string& file, const VipsOptions& vips,
                     std::ostream& out, std::ostream& err);
// The line for a /readyz answer: its first line, then the others joined with "; ".
std::string health_line(int status, std::string_view body);
// `vigil upgrade`: the daemon starts the binary now on disk, hands it its sockets and, once it
// is ready, stops gracefully. Exit codes as run_status; the outcome is in the daemon's log.
int run_upgrade(const ClientOptions& options, std::ostream& out, std::ostream& err);

// `vigil reload`: POST /v1/reload, which answers once the daemon applied or refused the file.
// Exit codes: 0 applied; 1 refused (its config errors, file:line, go to `err`) or another error
// answer; 2 the daemon cannot be reached or the URL is unusable.
int run_reload(const ClientOptions& options, std::ostream& out, std::ostream& err);

// `vigil sessions [--pool P] [--member M] [--json]`: GET /v1/sessions, as a table or the
// document. `vigil sessions kill --member M [--pool P]`: POST /v1/sessions/kill. Empty strings
// are filters not given. Exit codes as run_status.
int run_sessions(const ClientOptions& options, const std::string& pool, const std::string& member,
                 bool json, std::ostream& out, std::ostream& err);
int run_sessions_kill(const ClientOptions& options, const std::string& pool,
                      const std::string& member, std::ostream& out, std::ostream& err);
// "/v1/sessions?pool=masters&member=master-01", each value percent-encoded.
std::string sessions_path(const std::string& pool, const std::string& member);
// The sessions table (client, listener, pool, member, member_address, age, bytes_in, bytes_out;
// bytes_in flow from the client to the member) and a count line; the document, indented.
Result<std::string> format_sessions_table(std::string_view sessions_json);
Result<std::string> format_sessions_json(std::string_view sessions_json);

// What to tell the user, and the exit code, when a command fails.
struct Failure {
  int exit_code;
  std::string message;
};

// `vigil member VERB [POOL/]MEMBER [N] [--wait[=TIMEOUT]]`.
struct MemberCommand {
  std::string verb;           // "drain", "maint", "ready" or "weight"
  std::string target;         // "[POOL/]MEMBER": POOL a pool's name or id, MEMBER a member's
  std::optional<int> weight;  // weight: 0..256
  std::optional<std::chrono::milliseconds> wait;  // drain: until no active session is left
  std::string by = "CLI";                         // shown as "set by"
};
// MEMBER (a name, an id or an address) acts on every pool that has it: a host behind the API and
// the machine-config server is drained from both at once; POOL/MEMBER narrows it to one pool.
// Exit codes: 0 done, 1 the daemon refused (unknown member, bad value) or --wait timed out, 2 the
// daemon cannot be reached.
int run_member(const ClientOptions& options, const MemberCommand& command, std::ostream& out,
               std::ostream& err);

struct MemberRef {
  std::string pool_id;
  std::string pool;
  std::string member_id;
  std::string member;
};
// The members "[POOL/]MEMBER" names in a /v1/status document: those whose name, id or address
// is MEMBER, in every pool (or in POOL); none is exit 1.
std::expected<std::vector<MemberRef>, Failure> find_member_refs(std::string_view status_json,
                                                                std::string_view target);
// The member's active_connections in a /v1/status document; none when it is not there.
std::optional<int64_t> active_sessions(std::string_view status_json, std::string_view member_id);

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
