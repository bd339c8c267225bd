#include "daemon/command_line.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

namespace vigil::daemon {
namespace {

constexpr const char* kClientOptions =
    R"(Client options: --admin URL is where vigil's admin API listens: http://HOST:PORT or
unix:PATH, its Unix socket (env VIGIL_ADMIN; default: the config's admin.socket when you may
connect to it, else its admin.listen, else http://127.0.0.1:8404); --token-file FILE holds the
admin token (env VIGIL_TOKEN holds the token itself; default: the config's admin.token_file);
-c FILE is the config to take those defaults from (default /etc/vigil/vigil.yaml).)";

constexpr const char* kClientFooter =
    R"(Client options: --admin URL is where vigil's admin API listens: http://HOST:PORT or
unix:PATH, its Unix socket (env VIGIL_ADMIN; default: the config's admin.socket when you may
connect to it, else its admin.listen, else http://127.0.0.1:8404); --token-file FILE holds the
admin token (env VIGIL_TOKEN holds the token itself; default: the config's admin.token_file);
-c FILE is the config to take those defaults from (default /etc/vigil/vigil.yaml).
Exit codes: 0 done; 1 the daemon refused or answered an error; 2 bad usage or vigil cannot be
reached.)";

constexpr const char* kMemberFooter =
    R"(An operator's override of a member of a running vigil, kept across reloads and restarts (in
admin.state_file) until `ready`. MEMBER is a member's name, id or address, and acts on every pool
that has it (a master behind the API and the machine-config server is drained from both); POOL/
narrows it to one pool, by name or id. Overrides are this node's: in a pair, run it on each.
Exit codes: 0 done; 1 refused (unknown member, bad value) or --wait timed out; 2 bad usage or
vigil cannot be reached.)";

// --help-all: CLI11 expands one level of verbs; `member drain` and `sessions kill` are a level
// below, and vigil(1), which help2man writes from this, must show their options (--wait) too.
std::string help_all(const CLI::App& app) {
  std::string out = app.help("", CLI::AppFormatMode::All);
  for (const CLI::App* verb : app.get_subcommands({})) {
    for (const CLI::App* sub : verb->get_subcommands({})) {
      out += fmt::format("\n{} {}\n", verb->get_name(), sub->get_name());
      out += sub->help(fmt::format("vigil {}", verb->get_name()), CLI::AppFormatMode::Normal);
    }
  }
  return out;
}

void add_client_options(CLI::App& app, Args& a) {
  app.add_option("--admin", a.admin, "the admin API's URL or unix:PATH (env VIGIL_ADMIN)")
      ->option_text("URL");
  app.add_option("--token-file", a.token_file,
                 "the admin token's file (env VIGIL_TOKEN: the token)")
      ->option_text("FILE");
  app.add_option("-c,--config", a.config, "take the defaults from this config")
      ->option_text("FILE");
}

CLI::App* client_verb(CLI::App& app, Args& a, const char* name, const char* what) {
  CLI::App* verb = app.add_subcommand(name, what);
  verb->callback([&a, verb] { a.verb = verb->get_name(); });
  add_client_options(*verb, a);
  verb->footer(kClientFooter);
  return verb;
}

void add_serve(CLI::App& app, Args& a) {
  CLI::App* serve = app.add_subcommand(
      "serve", "run the load balancer in the foreground (FILE: vigil YAML or an haproxy.cfg)");
  serve->callback([&a] { a.verb = "serve"; });
  serve->add_option("-c,--config", a.config, "the config file")->option_text("FILE")->required();
  serve->add_option("--ready-file", a.ready_file, "write this file once serving")
      ->option_text("PATH");
  serve
      ->add_option("--token-file", a.token_file,
                   "sets admin.token_file (which an haproxy.cfg cannot)")
      ->option_text("FILE");
  serve->add_option("--log-level", a.log_level, "debug, info, warn or error")
      ->option_text("LEVEL")
      ->check(CLI::IsMember({"debug", "info", "warn", "error"}));
  serve->footer(
      "SIGHUP or `vigil reload` re-reads FILE; SIGTERM stops gracefully, a second SIGTERM or a "
      "SIGINT at once;\nSIGUSR2 or `vigil upgrade` starts the binary on disk in its place.");
}

void add_offline_verbs(CLI::App& app, Args& a) {
  CLI::App* check = app.add_subcommand(
      "check",
      "validate a config; print errors with file:line and, per pool, how long a dead member "
      "takes to be taken out and to come back");
  check->callback([&a] { a.verb = "check"; });
  check->add_option("-c,--config", a.config, "the config file (vigil YAML or haproxy.cfg)")
      ->option_text("FILE")
      ->required();
  check->footer("Exit codes: 0 valid (warnings allowed); 1 errors; 2 bad usage.");

  CLI::App* convert = app.add_subcommand(
      "convert",
      "print the equivalent vigil YAML of an haproxy.cfg, with what could not be "
      "carried over");
  convert->callback([&a] { a.verb = "convert"; });
  convert->add_option("HAPROXY_CFG", a.file, "the haproxy.cfg");
  convert->add_option("-c,--config", a.config, "the haproxy.cfg (instead of HAPROXY_CFG)")
      ->option_text("FILE");
  convert->footer("Exit codes: 0 converted; 1 the file has errors; 2 bad usage.");

  CLI::App* store = app.add_subcommand(
      "store", "the API's shared store (admin.store type etcd): import a node's state file");
  store->require_subcommand(1);
  CLI::App* import = store->add_subcommand(
      "import",
      "put the API's objects of a state file into the empty etcd prefix of admin.store, before "
      "the nodes switch to it (docs/ha.md)");
  import->callback([&a] {
    a.verb = "store";
  a.sub = "import";
});
import->add_option("-c,--config", a.config, "the config naming admin.store (type etcd)")
    ->option_text("FILE")
    ->required();
import->add_option("--state-file", a.file, "the state file to import (default: admin.state_file)")
    ->option_text("FILE");
import->footer(
    "Exit codes: 0 imported; 1 refused (a prefix that holds other keys) or failed; 2 "
    "bad usage.");

CLI::App* version =
    app.add_subcommand("version", "print the version, commit, build type and library versions");
version->callback([&a] { a.verb = "version"; });
}  // namespace

void add_member(CLI::App& app, Args& a) {
  CLI::App* member = app.add_subcommand(
      "member", "change a member of a running vigil at run time: drain, maint, ready, weight");
  member->require_subcommand(1);
  member->footer(kMemberFooter);
  struct Verb {
    const char* name;
    const char* what;
  };
  static constexpr Verb kVerbs[] = {
      {"drain", "no new connections; established sessions continue (DRAINING)"},
      {"maint", "out of rotation and its sessions closed; still checked (OFFLINE)"},
      {"ready", "clear the override: back to what the config file and the checks say"},
      {"weight", "run the member with weight N (0..256; 0 drains) instead of the file's"},
  };
  for (const Verb& v : kVerbs) {
    CLI::App* verb = member->add_subcommand(v.name, v.what);
    verb->callback([&a, verb] {
      a.verb = "member";
      a.sub = verb->get_name();
    });
    verb->add_option("MEMBER", a.target,
                     "a member's name, id or address: in every pool that has it")
        ->option_text("[POOL/]MEMBER")
        ->required();
    if (std::string_view(v.name) == "weight") {
      verb->add_option("N", a.weight, "the weight, 0..256")->required()->check(CLI::Range(0, 256));
    }
    if (std::string_view(v.name) == "drain") {
      // A flag, so that `--wait` alone never takes the next word; `--wait=10m` sets the time.
      verb->add_flag("--wait", a.wait_for,
                     "return once the member has no active session left (default TIMEOUT 5m; "
                     "exit 1 when it runs out)")
          ->option_text("[=TIMEOUT]");
    }
    add_client_options(*verb, a);
    verb->footer(std::string(kMemberFooter) + "\n\n" + kClientOptions);
  }
}

void add_sessions(CLI::App& app, Args& a) {
  CLI::App* sessions =
      client_verb(app, a, "sessions", "list the established sessions of a running vigil");
  sessions->require_subcommand(0, 1);
  sessions->add_option("--pool", a.pool, "only this pool's (name or id)")->option_text("POOL");
  sessions->add_option("--member", a.member, "only this member's")->option_text("MEMBER");
  sessions->add_flag("--json", a.json, "the API's document instead of a table");
  CLI::App* kill = sessions->add_subcommand("kill", "close every session of a member");
  kill->callback([&a] {
    a.verb = "sessions";
    a.sub = "kill";
  });
  kill->add_option("--member", a.member, "the member")->option_text("MEMBER")->required();
  kill->add_option("--pool", a.pool, "its pool, when the name is in several")->option_text("POOL");
  add_client_options(*kill, a);
  kill->footer(kClientFooter);
}

void add_client_verbs(CLI::App& app, Args& a) {
  CLI::App* members = client_verb(app, a, "members",
                                  "the member table of a running vigil, with each check's reason");
  members->add_option("POOL", a.pool, "only this pool (name or id)");
  members->add_flag("--json", a.json, "an array of Octavia member objects with their check");

  CLI::App* status = client_verb(app, a, "status", "the status tree of a running vigil");
  status->add_flag("--json", a.json, "Octavia's status tree");

  CLI::App* health = client_verb(
      app, a, "health",
      "one line: whether the local vigil serves and every listener has a usable member");
  CLI::Option* exit_code =
      health->add_flag("--exit-code", a.exit_code, "exit 0 ready, 1 not (or unreachable)");
  health
      ->add_option("--track-file", a.track_file,
                   "run until stopped, keeping FILE at 0 while ready and 1 while not (keepalived's "
                   "track_file); a dead vigil is seen at once")
      ->option_text("FILE")
      ->excludes(exit_code);
  CLI::Option* vips_file =
      health
          ->add_option("--vips-file", a.vips_file,
                       "run until stopped, keeping FILE listing the vip_address of every load "
                       "balancer created through the API, for keepalived or BIRD to include "
                       "(needs a token: --token-file)")
          ->option_text("FILE")
          ->excludes(exit_code);
  health
      ->add_option(
          "--vips-format", a.vips_format,
          "keepalived: `192.0.2.10/32` lines for a virtual_ipaddress_excluded block; bird: "
          "`route 192.0.2.10/32 via \"lo\";` lines for a static protocol")
      ->check(CLI::IsMember({"keepalived", "bird"}))
      ->capture_default_str()
      ->needs(vips_file);
  health
      ->add_option("--vips-reload", a.vips_reload,
                   "run CMD (/bin/sh -c) after each change of the --vips-file, again every "
                   "second while it fails")
      ->option_text("CMD")
      ->needs(vips_file);
  health->footer(
      "usage: vigil health [--exit-code | [--track-file FILE] [--vips-file FILE [--vips-format "
      "keepalived|bird] [--vips-reload CMD]]]: GET /readyz, 1 s in all, no token (for "
      "keepalived's vrrp_script); --vips-file also reads /v1/status, with the token.\nExit codes: "
      "0 the daemon answered (with --exit-code: "
      "answered ready); 1 with --exit-code anything else,\nor FILE cannot be written; 2 bad "
      "usage, or unreachable without --exit-code.");

  client_verb(app, a, "reload",
              "make a running vigil re-read its config; prints the errors (file:line) when the "
              "file is refused");
  add_member(app, a);
  add_sessions(app, a);
  client_verb(app, a, "upgrade",
              "start the vigil binary now on disk in place of the running one, without refusing "
              "a connection");
}

// CLI11 says "A subcommand is required" for a verb it does not know: name the word instead. A verb
// without subcommands (members POOL) reads its words itself.
std::string unknown_verb(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* at = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.starts_with("-")) return "";
    const auto subs = at->get_subcommands([](const CLI::App*) { return true; });
    if (subs.empty()) return "";
    const CLI::App* next = nullptr;
    for (const CLI::App* s : subs) {
      if (s->get_name() == word) next = s;
    }
    if (next == nullptr) {
      const std::string prefix = at == &app ? "" : at->get_name() + " ";
      return "unknown command \"" + prefix + word + "\"";
    }
    at = next;
  }
  return "";
}

}  // namespace vigil::daemon

std::variant<Args, int> parse_command_line(int argc, const char* const* argv,
                                           const std::string& version_text, std::ostream& out,
                                           std::ostream& err) {
  Args a;
  CLI::App app{
      "vigil: a health-checking Layer-4 load balancer for Kubernetes and OpenShift "
      "control planes",
      "vigil"};
  app.require_subcommand(1);
  // CLI11 ends the text with its own newline.
  const std::string version = version_text.substr(0, version_text.find_last_not_of('\n') + 1);
  app.set_version_flag(
      "--version", [&version] { return version; },
      "print the version, commit, build type and library versions");
  app.footer("Run `vigil COMMAND --help` for the options of a command.\n\n" +
             std::string(kClientFooter));
  CLI::App* help = app.add_subcommand("help", "print this help");
  add_serve(app, a);
  add_offline_verbs(app, a);
  add_client_verbs(app, a);
  // After the verbs, which would inherit it. help2man writes vigil(1) from it: every verb with its
  // options (deploy/install.cmake).
  app.set_help_all_flag("--help-all", "print the help of every command");
  if (const std::string unknown = unknown_verb(app, argc, argv); !unknown.empty()) {
    err << "vigil: " << unknown << "\nRun with --help for more information.\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForAllHelp&) {
    out << help_all(app);
    return 0;
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" of exit code 0; every real one is a usage error, exit 2.
    return app.exit(e, out, err) == 0 ? 0 : 2;
  }
  if (help->parsed()) {
    // Not app.help(), which would show the help of the verb `help` itself.
    out << app.get_formatter()->make_help(&app, "vigil", CLI::AppFormatMode::Normal);
    return 0;
  }
  a.wait = !a.wait_for.empty();
  if (a.wait_for == "true") a.wait_for.clear();  // `--wait` alone: the default
  return a;
}

}  // namespace vigil::daemon
