// vigil: one binary, one verb per job; command_line.cc reads the arguments, main() dispatches.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <variant>

#include "base/duration.h"
#include "base/file.h"
#include "base/log.h"
#include "cli/client.h"
#include "cli/commands.h"
#include "config/haproxy/convert.h"
#include "config/loader.h"
#include "config/report.h"
#include "daemon/command_line.h"
#include "daemon/control_plane.h"
#include "daemon/shared_store_start.h"
#include "daemon/store_import.h"
#include "daemon/version.h"
#include "etcd/client.h"
#include "net/interfaces.h"
#include "net/unix_socket.h"
#include "peers/tls.h"
#include "redirect/nft_table.h"

namespace {

using vigil::daemon::Args;

constexpr auto kDefaultDrainWait = std::chrono::minutes(5);

constexpr const char* kDefaultConfig = "/etc/vigil/vigil.yaml";

// --admin / VIGIL_ADMIN / the config's admin.socket or admin.listen; --token-file / VIGIL_TOKEN /
// token_file.
std::optional<vigil::cli::ClientOptions> options_from(
    const Args& a, const std::optional<vigil::model::Process>& process) {
  vigil::cli::ClientOptions o{.admin_url = vigil::cli::default_admin_url("", "", false)};
  if (process) {
    const vigil::model::Admin& admin = process->admin;
    o.admin_url = vigil::cli::default_admin_url(
        admin.listen, admin.socket, !admin.socket.empty() && vigil::net::may_connect(admin.socket));
  }
  if (const char* env = std::getenv("VIGIL_ADMIN")) o.admin_url = env;
  if (!a.admin.empty()) o.admin_url = a.admin;
  std::optional<std::string> token_file;
  if (process && !process->admin.token_file.empty()) token_file = process->admin.token_file;
  if (const char* env = std::getenv("VIGIL_TOKEN")) {
    o.token = env;
    token_file.reset();
  }
  if (!a.token_file.empty()) token_file = a.token_file;
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

// The same, with the settings read from -c FILE (or /etc/vigil/vigil.yaml when it is there).
std::optional<vigil::cli::ClientOptions> client_options(const Args& a) {
  std::optional<vigil::model::Process> process;
  const bool given = !a.config.empty();
  const std::string path = given ? a.config : kDefaultConfig;
  if (given || ::access(kDefaultConfig, R_OK) == 0) {
    auto loaded = vigil::config::load_file(path);
    if (loaded.ok()) {
      process = std::move(loaded.process);
    } else if (given) {
      std::cerr << "vigil: " << path << " is not a valid config (run `vigil check -c " << path
                << "`)\n";
      return std::nullopt;
    }
  }
  return options_from(a, process);
}

// peers_auth.tls names files that only loading them checks (a missing file, not PEM, a key that
// is not the certificate's): an error at the `tls` key's file:line, as the daemon would refuse.
void check_peer_tls(vigil::config::LoadResult& result) {
  if (!result.process || !result.process->peers_auth.tls) return;
  const vigil::model::PeerTls& tls = *result.process->peers_auth.tls;
  if (auto context = vigil::peers::tls_context(tls); !context) {
    result.diagnostics.push_back(vigil::config::make_error(tls.where, context.error().message));
    result.process.reset();
    result.config.reset();
  }
}

// admin.store's TLS files, checked the same way, at the `store` key's file:line.
void check_store_tls(vigil::config::LoadResult& result) {
  if (!result.process) return;
  const vigil::model::Store& store = result.process->admin.store;
  if (store.type != vigil::model::StoreType::kEtcd) return;
  if (auto checked = vigil::etcd::Client::check(vigil::daemon::etcd_options(store)); !checked) {
    result.diagnostics.push_back(
        vigil::config::make_error(store.where, "admin.store: " + checked.error().message));
    result.process.reset();
    result.config.reset();
  }
}

// redirect_from: whether this process could program nftables. A warning, not an error: the
// check may run with fewer capabilities than the service (an operator's shell).
void check_redirects(vigil::config::LoadResult& result) {
  if (!result.config) return;
  for (const vigil::model::Listener& l : result.config->listeners) {
    if (!l.redirect_from) continue;
    auto table = vigil::redirect::NftTable::open("vigil_check");
    vigil::Result<void> usable =
        table ? (*table)->probe() : vigil::Result<void>(std::unexpected(table.error()));
    if (!usable) {
      result.diagnostics.push_back(vigil::config::make_warning(
          l.where, "listener \"" + l.name +
                       "\": redirect_from: nftables refused: " + usable.error().message +
                       ": `vigil serve` needs CAP_NET_ADMIN to keep the redirect; without it the "
                       "redirect stays absent (docs/kubernetes.md)"));
    }
    return;  // one probe says it for every listener
  }
}

int run_check(const Args& a) {
  auto result = vigil::config::load_file(a.config);
  check_peer_tls(result);
  check_store_tls(result);
  check_redirects(result);
  // Unknown local addresses only cost the freebind warning.
  const auto local = vigil::net::local_addresses();
  std::cout << vigil::config::check_report(
      result, local ? vigil::config::LocalAddresses(*local) : std::nullopt);
  return result.ok() ? 0 : 1;
}

int run_store(const Args& a) {
  auto loaded = vigil::config::load_file(a.config);
  if (!loaded.ok()) {
    std::cerr << "vigil: " << a.config << " is not a valid config (run `vigil check -c " << a.config
              << "`)\n";
    return 1;
  }
  const vigil::model::Admin& admin = loaded.process->admin;
  return vigil::daemon::run_store_import(admin.store, a.file.empty() ? admin.state_file : a.file,
                                         std::cout, std::cerr);
}

int run_convert(const Args& a) {
  const std::string path = a.file.empty() ? a.config : a.file;
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

// `vigil member VERB [POOL/]MEMBER [N] [--wait[=TIMEOUT]]`; bad usage is exit 2.
int run_member(const Args& a) {
  vigil::cli::MemberCommand c{.verb = a.sub, .target = a.target};
  if (c.verb == "weight") c.weight = a.weight;
  if (a.wait) {
    c.wait = kDefaultDrainWait;
    if (!a.wait_for.empty()) {
      auto d = vigil::parse_duration(a.wait_for);
      if (!d || *d <= vigil::Duration::zero()) {
        std::cerr << "vigil member drain: --wait=" << a.wait_for
                  << ": give a duration such as 90s or 10m\n";
        return 2;
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
  using vigil::log::Level;
  if (a.log_level == "debug") vigil::log::set_level(Level::kDebug);
  if (a.log_level == "info") vigil::log::set_level(Level::kInfo);
  if (a.log_level == "warn") vigil::log::set_level(Level::kWarn);
  if (a.log_level == "error") vigil::log::set_level(Level::kError);
  return vigil::daemon::serve(
      {.config_path = a.config, .ready_file = a.ready_file, .token_file = a.token_file});
}

// `vigil reload -c FILE` with a FILE that does not load. The daemon must still try it itself, so
// that it logs the refusal, keeps its configuration, sets vigil_config_last_reload_successful 0
// and tells systemd (RELOADING=1, READY=1); but the admin address and token cannot be read from
// FILE. So: at --admin / VIGIL_ADMIN when given (the daemon's 409 lists the errors), else by
// SIGHUP to $MAINPID, which systemd sets for the unit's ExecReload= (then exit 1 with the errors).
std::optional<int> reload_broken_file(const Args& a) {
  const std::string path = a.config.empty() ? kDefaultConfig : a.config;
  if (a.config.empty() && ::access(kDefaultConfig, R_OK) != 0) return std::nullopt;
  const auto loaded = vigil::config::load_file(path);
  if (loaded.ok()) return std::nullopt;
  if (!a.admin.empty() || std::getenv("VIGIL_ADMIN") != nullptr) {
    auto options = options_from(a, std::nullopt);
    if (!options) return 2;
    return vigil::cli::run_reload(*options, std::cout, std::cerr);
  }
  std::cerr << "vigil reload: refused: " << path
            << " has errors; the running configuration stays\n";
  for (const auto& d : loaded.diagnostics) {
    if (d.is_error()) std::cerr << "  " << d.to_string() << "\n";
  }
  const char* main_pid = std::getenv("MAINPID");
  const long pid = main_pid != nullptr ? std::strtol(main_pid, nullptr, 10) : 0;
  if (pid > 1 && ::kill(static_cast<pid_t>(pid), SIGHUP) == 0) {
    std::cerr << "  (vigil, pid " << pid << ", was sent SIGHUP: it refuses the file too, and its "
              << "log and vigil_config_last_reload_successful say so)\n";
  } else {
    std::cerr << "  (vigil was not asked: its admin address is in this file; give --admin, or "
              << "send it SIGHUP)\n";
  }
  return 1;
}

// The verbs that ask a running daemon.
int run_client(const Args& a) {
  if (a.verb == "reload") {
    if (auto refused = reload_broken_file(a)) return *refused;
  }
  auto options = client_options(a);  // health: only --vips-file sends the token it may read
  if (!options) return 2;
  const std::optional<std::string> pool =
      a.pool.empty() ? std::nullopt : std::optional<std::string>(a.pool);
  if (a.verb == "health" && (!a.track_file.empty() || !a.vips_file.empty())) {
    const vigil::cli::VipsOptions vips{
        .file = a.vips_file,
        .format = vigil::cli::parse_vips_format(a.vips_format)
                      .value_or(vigil::cli::VipsFormat::kKeepalived),  // CLI11 checked it
        .reload = a.vips_reload};
    return vigil::cli::run_health_track(*options, a.track_file, vips, std::cout, std::cerr);
  }
  if (a.verb == "health")
    return vigil::cli::run_health(*options, a.exit_code, std::cout, std::cerr);
  if (a.verb == "upgrade") return vigil::cli::run_upgrade(*options, std::cout, std::cerr);
  if (a.verb == "reload") return vigil::cli::run_reload(*options, std::cout, std::cerr);
  if (a.verb == "sessions" && a.sub == "kill") {
    return vigil::cli::run_sessions_kill(*options, a.pool, a.member, std::cout, std::cerr);
  }
  if (a.verb == "sessions") {
    return vigil::cli::run_sessions(*options, a.pool, a.member, a.json, std::cout, std::cerr);
  }
  if (a.verb == "members") {
    return vigil::cli::run_members(*options, pool, a.json, std::cout, std::cerr);
  }
  return vigil::cli::run_status(*options, a.json, std::cout, std::cerr);
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = vigil::daemon::parse_command_line(argc, argv, vigil::daemon::version_text(),
                                                  std::cout, std::cerr);
  if (const int* exit_code = std::get_if<int>(&parsed)) return *exit_code;
  const Args& args = std::get<Args>(parsed);
  const std::string& verb = args.verb;
  if (verb == "serve") return run_serve(args);
  if (verb == "check") return run_check(args);
  if (verb == "convert") return run_convert(args);
  if (verb == "store") return run_store(args);
  if (verb == "member") return run_member(args);
  if (verb == "version") {
    std::cout << vigil::daemon::version_text();
    return 0;
  }
  return run_client(args);
}
