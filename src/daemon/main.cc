// vigil's command line: one binary, one verb per job (DESIGN.md section 2.1).
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "base/duration.h"
#include "base/file.h"
#include "base/log.h"
#include "cli/commands.h"
#include "config/haproxy/convert.h"
#include "config/loader.h"
#include "config/report.h"
#include "daemon/control_plane.h"
#include "net/interfaces.h"

namespace {

constexpr const char* kUsage = R"(usage: vigil COMMAND [options]

commands:
  serve -c FILE [--ready-file PATH] [--token-file FILE] [--log-level debug|info|warn|error]
                              run the load balancer in the foreground (FILE: vigil YAML or an
                              haproxy.cfg; --token-file sets admin.token_file, which an
                              haproxy.cfg cannot)
  check -c FILE               validate a config (vigil YAML or haproxy.cfg); print errors with
                              file:line and, per pool, how long a dead member takes to be taken
                              out and to come back
  convert HAPROXY_CFG         print the equivalent vigil YAML, with what could not be carried over
  members [POOL] [--json]     the member table of a running vigil, with each check's reason
  status [--json]             the status tree of a running vigil
  health [--exit-code]        one line: whether the local vigil serves and every listener has a
                              usable member (GET /readyz, 1 s, no token); --exit-code: exit 0
                              ready, 1 not (or unreachable), 2 bad usage (for keepalived)
  member drain|maint|ready|weight [POOL/]MEMBER [N] [--wait[=TIMEOUT]]
                              change a member of a running vigil at run time (vigil member
                              --help)
  upgrade                     start the vigil binary now on disk in place of the running one,
                              without refusing a connection (docs/operations.md)
  version                     print the version

client options (members, status, member, upgrade; health takes --admin and -c):
  --admin URL        where vigil's admin API listens (env VIGIL_ADMIN; default: the config's
                     admin.listen, else http://127.0.0.1:8404)
  --token-file FILE  the admin token (env VIGIL_TOKEN holds the token itself; default: the
                     config's admin.token_file)
  -c FILE            the config to take those defaults from (default /etc/vigil/vigil.yaml)
)";

constexpr const char* kMemberUsage = R"(usage: vigil member VERB [POOL/]MEMBER [options]

An operator's override of one member of a running vigil, kept across reloads and restarts (in
admin.state_file) until `ready`:
  member drain [POOL/]MEMBER [--wait[=TIMEOUT]]
                     no new connections; established sessions continue (DRAINING). --wait
                     returns once the member has no active session left (default TIMEOUT 5m;
                     exit 1 when it runs out)
  member maint [POOL/]MEMBER
                     out of rotation and its sessions closed; still checked (OFFLINE)
  member ready [POOL/]MEMBER
                     clears the override: back to what the config file and the checks say
  member weight [POOL/]MEMBER N
                     runs the member with weight N (0..256; 0 drains) instead of the file's

POOL is a pool's name or id; MEMBER alone is enough when no other pool has a member of that name.
Exit codes: 0 done; 1 refused (unknown member, bad value) or --wait timed out; 2 bad usage, vigil
cannot be reached, or MEMBER is in several pools.

client options:
  --admin URL        where vigil's admin API listens (env VIGIL_ADMIN; default: the config's
                     admin.listen, else http://127.0.0.1:8404)
  --token-file FILE  the admin token (env VIGIL_TOKEN holds the token itself; default: the
                     config's admin.token_file)
  -c FILE            the config to take those defaults from (default /etc/vigil/vigil.yaml)
)";

constexpr auto kDefaultDrainWait = std::chrono::minutes(5);

constexpr const char* kDefaultConfig = "/etc/vigil/vigil.yaml";

struct Args {
  std::string verb;
  std::vector<std::string> positional;
  std::optional<std::string> config, ready_file, admin, token_file, log_level;
  std::optional<std::string> wait;  // --wait (empty) or --wait=TIMEOUT
  bool json = false;
  bool help = false;
  bool exit_code = false;  // health
};

std::optional<Args> parse(int argc, char** argv, std::string& error) {
  Args a;
  if (argc < 2) return std::nullopt;
  a.verb = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](std::optional<std::string>& out) {
      if (i + 1 >= argc) {
        error = arg + " needs a value";
        return false;
      }
      out = argv[++i];
      return true;
    };
    bool ok = true;
    if (arg == "-c" || arg == "--config")
      ok = value(a.config);
    else if (arg == "--ready-file")
      ok = value(a.ready_file);
    else if (arg == "--admin")
      ok = value(a.admin);
    else if (arg == "--token-file")
      ok = value(a.token_file);
    else if (arg == "--log-level")
      ok = value(a.log_level);
    else if (arg == "--json")
      a.json = true;
    else if (arg == "--exit-code")
      a.exit_code = true;
    else if (arg == "--help" || arg == "-h")
      a.help = true;
    else if (arg == "--wait" || arg.starts_with("--wait="))
      a.wait = arg.size() > 7 ? arg.substr(7) : "";
    else if (arg.starts_with("-")) {
      error = "unknown option " + arg;
      return std::nullopt;
    } else {
      a.positional.push_back(arg);
    }
    if (!ok) return std::nullopt;
  }
  return a;
}

// --admin / VIGIL_ADMIN / the config's admin.listen; --token-file / VIGIL_TOKEN / token_file.
std::optional<vigil::cli::ClientOptions> client_options(const Args& a) {
  vigil::cli::ClientOptions o{.admin_url = "http://127.0.0.1:8404"};
  std::optional<vigil::model::Config> config;
  const std::string path = a.config.value_or(kDefaultConfig);
  if (a.config || ::access(kDefaultConfig, R_OK) == 0) {
    auto loaded = vigil::config::load_file(path);
    if (loaded.ok()) {
      config = std::move(loaded.config);
    } else if (a.config) {
      std::cerr << "vigil: " << path << " is not a valid config (run `vigil check -c " << path
                << "`)\n";
      return std::nullopt;
    }
  }
  if (config && !config->admin.listen.empty()) o.admin_url = "http://" + config->admin.listen;
  if (const char* env = std::getenv("VIGIL_ADMIN")) o.admin_url = env;
  if (a.admin) o.admin_url = *a.admin;
  std::optional<std::string> token_file;
  if (config && !config->admin.token_file.empty()) token_file = config->admin.token_file;
  if (const char* env = std::getenv("VIGIL_TOKEN")) {
    o.token = env;
    token_file.reset();
  }
  if (a.token_file) token_file = a.token_file;
  if (token_file) {
    auto t = vigil::read_secret_file(*token_file);
    if (!t) {
      std::cerr << "vigil: " << t.error().message << "\n";
      return std::nullopt;
    }
    o.token = *t;
  }
  return o;
}

int run_check(const Args& a) {
  if (!a.config) {
    std::cerr << "vigil check: -c FILE is required\n";
    return 2;
  }
  const auto result = vigil::config::load_file(*a.config);
  // Unknown local addresses only cost the freebind warning.
  const auto local = vigil::net::local_addresses();
  std::cout << vigil::config::check_report(
      result, local ? vigil::config::LocalAddresses(*local) : std::nullopt);
  return result.ok() ? 0 : 1;
}

// `vigil member VERB [POOL/]MEMBER [N] [--wait[=TIMEOUT]]`; bad usage is exit 2.
int run_member(const Args& a) {
  const std::vector<std::string>& p = a.positional;
  auto usage = [](const std::string& why) {
    std::cerr << "vigil member: " << why << "\n" << kMemberUsage;
    return 2;
  };
  if (p.empty()) return usage("give a verb: drain, maint, ready or weight");
  vigil::cli::MemberCommand c{.verb = p[0]};
  if (c.verb != "drain" && c.verb != "maint" && c.verb != "ready" && c.verb != "weight") {
    return usage("unknown verb \"" + c.verb + "\"; use drain, maint, ready or weight");
  }
  const size_t want = c.verb == "weight" ? 3 : 2;
  if (p.size() != want) {
    return usage(c.verb == "weight" ? "give [POOL/]MEMBER and the weight N"
                                    : "give one [POOL/]MEMBER");
  }
  c.target = p[1];
  if (c.verb == "weight") {
    int n = -1;
    const auto [end, ec] = std::from_chars(p[2].data(), p[2].data() + p[2].size(), n);
    if (ec != std::errc() || end != p[2].data() + p[2].size() || n < 0 || n > 256) {
      return usage("the weight must be a whole number from 0 to 256 (got \"" + p[2] + "\")");
    }
    c.weight = n;
  }
  if (a.wait) {
    if (c.verb != "drain") return usage("--wait goes with drain");
    c.wait = kDefaultDrainWait;
    if (!a.wait->empty()) {
      auto d = vigil::parse_duration(*a.wait);
      if (!d || *d <= vigil::Duration::zero()) {
        return usage("--wait=" + *a.wait + ": give a duration such as 90s or 10m");
      }
      c.wait = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
    }
  }
  if (const char* user = std::getenv("SUDO_USER") ? std::getenv("SUDO_USER") : std::getenv("USER");
      user != nullptr && *user != '\0' && std::string_view(user).size() <= 32) {
    c.by = std::string("CLI (") + user + ")";
  }
  auto options = client_options(a);
  if (!options) return 2;
  return vigil::cli::run_member(*options, c, std::cout, std::cerr);
}

int run_serve(const Args& a) {
  if (!a.config) {
    std::cerr << "vigil serve: -c FILE is required\n";
    return 2;
  }
  if (a.log_level) {
    using vigil::log::Level;
    const std::string& l = *a.log_level;
    if (l == "debug")
      vigil::log::set_level(Level::kDebug);
    else if (l == "info")
      vigil::log::set_level(Level::kInfo);
    else if (l == "warn")
      vigil::log::set_level(Level::kWarn);
    else if (l == "error")
      vigil::log::set_level(Level::kError);
    else {
      std::cerr << "vigil serve: --log-level must be debug, info, warn or error\n";
      return 2;
    }
  }
  return vigil::daemon::serve({.config_path = *a.config,
                               .ready_file = a.ready_file.value_or(""),
                               .token_file = a.token_file.value_or("")});
}

}  // namespace

int main(int argc, char** argv) {
  std::string error;
  auto args = parse(argc, argv, error);
  if (!args) {
    std::cerr << (error.empty() ? "" : "vigil: " + error + "\n") << kUsage;
    return 2;
  }
  const std::string& verb = args->verb;
  if (args->help) {
    std::cout << (verb == "member" ? kMemberUsage : kUsage);
    return 0;
  }
  if (verb == "member") return run_member(*args);
  if (verb == "serve") return run_serve(*args);
  if (verb == "check") return run_check(*args);
  if (verb == "health") {
    if (!args->positional.empty()) {
      std::cerr << "vigil health: takes no arguments\n" << kUsage;
      return 2;
    }
    auto options = client_options(*args);  // the token it may read is not sent
    if (!options) return 2;
    return vigil::cli::run_health(*options, args->exit_code, std::cout, std::cerr);
  }
  if (verb == "upgrade") {
    auto options = client_options(*args);
    if (!options) return 2;
    return vigil::cli::run_upgrade(*options, std::cout, std::cerr);
  }
  if (verb == "members" || verb == "status") {
    auto options = client_options(*args);
    if (!options) return 2;
    if (verb == "members") {
      std::optional<std::string> pool;
      if (!args->positional.empty()) pool = args->positional[0];
      return vigil::cli::run_members(*options, pool, args->json, std::cout, std::cerr);
    }
    return vigil::cli::run_status(*options, args->json, std::cout, std::cerr);
  }
  if (verb == "convert") {
    const std::string path =
        args->positional.empty() ? args->config.value_or("") : args->positional[0];
    if (path.empty()) {
      std::cerr << "vigil convert: give the haproxy.cfg to convert\n";
      return 2;
    }
    const auto loaded = vigil::config::load_file(path);
    if (!loaded.ok()) {
      std::cerr << vigil::config::convert_report(loaded);
      return 1;
    }
    std::cout << vigil::config::convert_report(loaded);
    return 0;
  }
  if (verb == "version" || verb == "--version") {
    std::cout << "vigil " << VIGIL_VERSION << "\n";
    return 0;
  }
  if (verb == "help" || verb == "--help" || verb == "-h") {
    std::cout << kUsage;
    return 0;
  }
  std::cerr << "vigil: unknown command \"" << verb << "\"\n" << kUsage;
  return 2;
}
