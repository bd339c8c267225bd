// The global section: the few process settings that shape vigil's model, and why the others have
// no effect on it.
#include "base/ascii.h"
#include "config/haproxy/handlers.h"

namespace vigil::config::haproxy {
namespace {

constexpr unsigned G = kGlobal;

constexpr std::string_view kTlsSettings =
    "vigil's TLS checks use OpenSSL's defaults (TLS 1.2 and 1.3)";
constexpr std::string_view kProcess =
    "HAProxy process setting; run vigil under systemd (vigil serve stays in the foreground)";

void global_nbthread(Parser& p, const Directive& d, GlobalDraft& g) {
  if (!needs_args(p, d, 1, "a number of threads")) return;
  if (auto n = p.integer(d.line(), "nbthread", d.arg(0), 1, 1024)) g.nbthread.set(*n, d.line());
  extra_args(p, d, 1);
}

void global_ssl_server_verify(Parser& p, const Directive& d, GlobalDraft& g) {
  if (!needs_args(p, d, 1, "none or required")) return;
  const std::string word = lowercase(d.arg(0));
  if (word == "none") {
    g.verify_none.set(true, d.line());
  } else if (word == "required") {
    g.verify_none.set(false, d.line());
  } else {
    p.error(d.line(),
            "ssl-server-verify must be none or required, not \"" + shown(d.arg(0)) + "\"");
  }
}

void global_ca_base(Parser& p, const Directive& d, GlobalDraft& g) {
  if (needs_args(p, d, 1, "a directory")) g.ca_base = d.arg(0);
}

void global_crt_base(Parser& p, const Directive& d, GlobalDraft& g) {
  if (needs_args(p, d, 1, "a directory")) g.crt_base = d.arg(0);
}

constexpr Keyword<GlobalDraft> kGlobalKeywords[] = {
    {"nbthread", G, kMapped, "`workers`: the number of proxy worker threads.", global_nbthread},
    {"ssl-server-verify", G, kMapped,
     "The default of the servers' `verify` (HAProxy's default: required).",
     global_ssl_server_verify},
    {"ca-base", G, kMapped, "Directory of relative `ca-file` names.", global_ca_base},
    {"crt-base", G, kMapped, "Directory of relative `crt` names.", global_crt_base},
    {"maxconn", G, kIgnored,
     "vigil has no process-wide connection limit; each listener has max_connections (a "
     "frontend's or defaults' `maxconn`)"},
    {"daemon", G, kIgnored, kProcess},
    {"master-worker", G, kIgnored, kProcess},
    {"nbproc", G, kIgnored, "vigil is one process with one worker thread per core"},
    {"cpu-map", G, kIgnored, kProcess},
    {"chroot", G, kIgnored, kProcess},
    {"user", G, kIgnored, kProcess},
    {"group", G, kIgnored, kProcess},
    {"uid", G, kIgnored, kProcess},
    {"gid", G, kIgnored, kProcess},
    {"pidfile", G, kIgnored, kProcess},
    {"ulimit-n", G, kIgnored, kProcess},
    {"hard-stop-after", G, kIgnored,
     "vigil keeps established sessions across reloads and stops on SIGTERM"},
    {"grace", G, kIgnored, kProcess},
    {"node", G, kIgnored, kStats},
    {"description", G, kIgnored, kStats},
    {"stats", G, kIgnored, kStats},
    {"log", G, kIgnored, kLogging},
    {"log-send-hostname", G, kIgnored, kLogging},
    {"log-tag", G, kIgnored, kLogging},
    {"quiet", G, kIgnored, kLogging},
    {"spread-checks", G, kIgnored,
     "vigil always spreads checks: each interval varies by up to 10% either way"},
    {"max-spread-checks", G, kIgnored,
     "vigil always spreads checks: each interval varies by up to 10% either way"},
    {"tune.*", G, kIgnored, kTuning},
    {"maxsslconn", G, kIgnored, kTuning},
    {"maxconnrate", G, kIgnored, kTuning},
    {"maxsessrate", G, kIgnored, kTuning},
    {"maxsslrate", G, kIgnored, kTuning},
    {"maxpipes", G, kIgnored, kTuning},
    {"maxzlibmem", G, kIgnored, kTuning},
    {"maxcomprate", G, kIgnored, kTuning},
    {"maxcompcpuusage", G, kIgnored, kTuning},
    {"busy-polling", G, kIgnored, kTuning},
    {"noepoll", G, kIgnored, kTuning},
    {"nopoll", G, kIgnored, kTuning},
    {"nosplice", G, kIgnored, kTuning},
    {"nogetaddrinfo", G, kIgnored, kTuning},
    {"noreuseport", G, kIgnored, kTuning},
    {"thread-groups", G, kIgnored, kTuning},
    {"numa-cpu-mapping", G, kIgnored, kTuning},
    {"ssl-default-*", G, kIgnored, kTlsSettings},
    {"ssl-dh-param-file", G, kIgnored, kTlsSettings},
    {"ssl-engine", G, kIgnored, kTlsSettings},
    {"ssl-mode-async", G, kIgnored, kTlsSettings},
    {"ssl-load-extra-files", G, kIgnored, kTlsSettings},
    {"ssl-propquery", G, kIgnored, kTlsSettings},
    {"ssl-provider", G, kIgnored, kTlsSettings},
    {"ssl-security-level", G, kIgnored, kTlsSettings},
    {"ssl-skip-self-issued-ca", G, kIgnored, kTlsSettings},
    {"issuers-chain-path", G, kIgnored, kTlsSettings},
    {"server-state-file", G, kIgnored, "vigil keeps its members' health across reloads itself"},
    {"server-state-base", G, kIgnored, "vigil keeps its members' health across reloads itself"},
    {"lua-*", G, kIgnored, "vigil does not run Lua"},
    {"external-check", G, kIgnored, "vigil does not run external check programs"},
    {"insecure-fork-wanted", G, kIgnored, "vigil does not run external check programs"},
    {"setenv", G, kIgnored, "vigil does not expand environment variables"},
    {"presetenv", G, kIgnored, "vigil does not expand environment variables"},
    {"resetenv", G, kIgnored, "vigil does not expand environment variables"},
    {"unsetenv", G, kIgnored, "vigil does not expand environment variables"},
    {"localpeer", G, kIgnored, "vigil has no peers"},
    {"unix-bind", G, kIgnored, "vigil does not bind UNIX sockets"},
    {"expose-experimental-directives", G, kIgnored, "HAProxy-specific"},
    {"zero-warning", G, kIgnored, "HAProxy-specific"},
    {"strict-limits", G, kIgnored, "HAProxy-specific"},
    {"set-dumpable", G, kIgnored, "HAProxy-specific"},
    {"default-path", G, kIgnored, "HAProxy-specific"},
    {"h1-*", G, kIgnored, kHttpOnly},
    {"httpclient.*", G, kIgnored, "HAProxy's internal HTTP client"},
    {"profiling.*", G, kIgnored, "HAProxy-specific"},
    {"51degrees-*", G, kIgnored, kHttpOnly},
    {"deviceatlas-*", G, kIgnored, kHttpOnly},
    {"wurfl-*", G, kIgnored, kHttpOnly},
};

}  // namespace

std::span<const Keyword<GlobalDraft>> global_keywords() { return kGlobalKeywords; }

}  // namespace vigil::config::haproxy
