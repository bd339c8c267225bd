// `vigil health [--exit-code]`: the local daemon's /readyz in one line, for keepalived's
// vrrp_script and for people. Fast by design: one request, one second in all, no token.
#include <sstream>

#include "cli/client.h"
#include "cli/commands.h"

namespace vigil::cli {

// keepalived runs the script every second: an answer later than that is no answer.
constexpr std::chrono::milliseconds kHealthTimeout{1000};

std::string health_line(int status, std::string_view body) {
  std::istringstream in{std::string(body)};
  std::string first;
  std::getline(in, first);
  std::string details;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) details += (details.empty() ? "" : "; ") + line;
  }
  if ((status == 200 || status == 503) && !first.empty()) {
    return details.empty() ? first : first + ": " + details;
  }
  return "not serving: /readyz answered HTTP " + std::to_string(status);
}

int run_health(const ClientOptions& options, bool exit_code, std::ostream& out, std::ostream& err) {
  auto url = parse_admin_url(options.admin_url);
  if (!url) {
    err << "vigil health: " << url.error().message << "\n";
    return 2;
  }
  auto reply = http_get(*url, "/readyz", "", kHealthTimeout);
  if (!reply) {
    out << "not serving: cannot reach vigil at " << options.admin_url << ": "
        << reply.error().message << "\n";
    return exit_code ? 1 : 2;
  }
  out << health_line(reply->status, reply->body) << "\n";
  if (!exit_code) return 0;
  return reply->status == 200 ? 0 : 1;
}

}  // namespace vigil::cli
