// vigil-apisim: command-line parsing; everything else lives in server.cc.
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "base/duration.h"
#include "base/error.h"
#include "base/log.h"
#include "testing/apisim/options.h"

namespace vigil::apisim {
namespace {

constexpr std::string_view kUsage = R"(usage: vigil-apisim [flags]
A kube-apiserver simulator for vigil's demo and tests.

  --listen ADDR:PORT        listen address (default 127.0.0.1:0; IPv6 as [::1]:0)
  --name NAME               node name, sent as X-Served-By (default master-01)
  --ready-file PATH         once listening, write the bound ADDR:PORT to PATH (atomically)
  --cert FILE --key FILE    PEM certificate and key (default: self-signed, made at start-up)
  --plain                   serve plain HTTP instead of HTTPS
  --warmup DURATION         /readyz fails and /api* answers 401 for this long (default 0s)
  --shutdown-delay DURATION on SIGTERM, keep serving (with /readyz failing) this long (default 5s)
  --watch-interval DURATION time between MODIFIED events of a node watch (default 1s)
  --fail-readyz CHECK       make this readyz check fail (repeatable), e.g. etcd
  --endpoints LIST          endpoints of the default/kubernetes EndpointSlices, e.g.
                            10.0.0.11:6443,[2001:db8::1]:6443 (default: the listen address)
)";

Result<std::uint16_t> parse_port(std::string_view text) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value > 65535) {
    return fail("invalid port \"" + std::string(text) + "\"");
  }
  return static_cast<std::uint16_t>(value);
}

// "127.0.0.1:0", "[::1]:6443"; the address itself is checked when the server binds it.
Result<void> parse_listen(std::string_view text, Options& options) {
  std::string_view host;
  std::string_view port;
  if (text.starts_with('[')) {
    const auto close = text.find("]:");
    if (close == std::string_view::npos) return fail("invalid --listen, want [ADDR]:PORT");
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos || text.substr(0, colon).find(':') != text.npos) {
      return fail("invalid --listen, want ADDR:PORT (IPv6 as [ADDR]:PORT)");
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (host.empty()) return fail("invalid --listen: empty address");
  auto parsed = parse_port(port);
  if (!parsed) return std::unexpected(parsed.error());
  options.host = std::string(host);
  options.port = *parsed;
  return {};
}

// Node names are DNS subdomains; the name also goes into the certificate's SAN list.
bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) return false;
  }
  return true;
}

Result<Duration> parse_flag_duration(std::string_view flag, std::string_view text) {
  auto d = parse_duration(text);
  if (!d) return fail(std::string(flag) + ": " + d.error().message);
  return *d;
}

Result<Options> parse_args(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string_view flag = argv[i];
    std::string_view value;
    bool has_value = false;
    if (const auto eq = flag.find('='); flag.starts_with("--") && eq != flag.npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      has_value = true;
    }
    if (flag == "--plain") {
      options.plain = true;
      continue;
    }
    if (flag == "--help" || flag == "-h") {
      std::fputs(kUsage.data(), stdout);
      std::exit(0);
    }
    if (!has_value) {
      if (i + 1 >= argc) return fail("missing value for " + std::string(flag));
      value = argv[++i];
    }
    if (flag == "--listen") {
      if (auto r = parse_listen(value, options); !r) return std::unexpected(r.error());
    } else if (flag == "--name") {
      if (!valid_name(value)) return fail("invalid --name, want a DNS name like master-01");
      options.name = std::string(value);
    } else if (flag == "--ready-file") {
      options.ready_file = std::string(value);
    } else if (flag == "--cert") {
      options.cert_file = std::string(value);
    } else if (flag == "--key") {
      options.key_file = std::string(value);
    } else if (flag == "--warmup") {
      auto d = parse_flag_duration(flag, value);
      if (!d) return std::unexpected(d.error());
      options.warmup = *d;
    } else if (flag == "--shutdown-delay") {
      auto d = parse_flag_duration(flag, value);
      if (!d) return std::unexpected(d.error());
      options.shutdown_delay = *d;
    } else if (flag == "--watch-interval") {
      auto d = parse_flag_duration(flag, value);
      if (!d) return std::unexpected(d.error());
      if (*d <= Duration::zero()) return fail("--watch-interval must be positive");
      options.watch_interval = *d;
    } else if (flag == "--fail-readyz") {
      if (value.empty()) return fail("--fail-readyz needs a check name, e.g. etcd");
      options.fail_readyz.emplace_back(value);
    } else if (flag == "--endpoints") {
      auto endpoints = parse_endpoints(value);
      if (!endpoints) return fail("--endpoints: " + endpoints.error().message);
      options.endpoints = std::move(*endpoints);
    } else {
      return fail("unknown flag " + std::string(flag) + " (see --help)");
    }
  }
  if (options.cert_file.empty() != options.key_file.empty()) {
    return fail("--cert and --key go together");
  }
  if (options.plain && !options.cert_file.empty()) return fail("--plain takes no --cert/--key");
  return options;
}

}  // namespace
}  // namespace vigil::apisim

int main(int argc, char** argv) {
  auto options = vigil::apisim::parse_args(argc, argv);
  if (!options) {
    vigil::log::error("vigil-apisim: {}", options.error().message);
    return 2;
  }
  return vigil::apisim::run(*options);
}
