// vigil's command line (docs/api.md, "The client commands"): every verb, its options and its
// --help, parsed by CLI11. Usage errors are exit 2 and --help exit 0, for every verb alike.
// main()'s thread.
#pragma once

#include <ostream>
#include <string>
#include <variant>

namespace vigil::daemon {

// What the command line asks for. Empty strings are options not given.
struct Args {
  std::string verb;  // serve, check, convert, members, status, health, member, sessions, reload,
                     // upgrade, version
  std::string sub;   // member: drain, maint, ready or weight; sessions: "" (list) or "kill";
                     // store: import
  // Where the client verbs find the daemon: -c, --admin, --token-file (serve: --token-file too).
  std::string config, admin, token_file;
  std::string ready_file, log_level;  // serve
  std::string file;                   // convert: the haproxy.cfg; store import: --state-file
  std::string pool;                   // members [POOL]; sessions --pool
  std::string member;                 // sessions --member
  std::string target;                 // member VERB [POOL/]MEMBER
  int weight = -1;                    // member weight N
  bool wait = false;                  // member drain --wait[=TIMEOUT]
  std::string wait_for;               // its TIMEOUT; empty: the default
  bool json = false;
  bool exit_code = false;                                          // health
  std::string track_file;                                          // health --track-file
  std::string vips_file, vips_format = "keepalived", vips_reload;  // health --vips-*
};

// Parses argv into Args, or prints what was asked (--help, --version's text from
// `version_text`) or the usage error and gives the exit code to end with: 0 or 2.
std::variant<Args, int> parse_command_line(int argc, const char* const* argv,
                                           const std::string& version_text, std::ostream& out,
                                           std::ostream& err);

}  // namespace vigil::daemon
