// `vigil reload`: POST /v1/reload and wait for the daemon's verdict, so that `systemctl reload`
// (the unit's ExecReload=) fails visibly, with the file's errors, when the new config is refused.
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <chrono>

#include "cli/client.h"
#include "cli/commands.h"
#include "cli/printable.h"
#include "cli/status_doc.h"

namespace vigil::cli {
namespace {

// The daemon loads, resolves and applies the file before it answers; a name that resolves slowly
// can take seconds. Well inside systemd's default 90 s for ExecReload=.
constexpr std::chrono::seconds kReloadTimeout{60};

boost::json::object parsed_object(const std::string& body) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(body, ec);
  if (ec || !v.is_object()) return {};
  return std::move(v.as_object());
}

}  // namespace

int run_reload(const ClientOptions& options, std::ostream& out, std::ostream& err) {
  auto url = parse_admin_url(options.admin_url);
  if (!url) {
    err << "vigil reload: " << url.error().message << "\n";
    return 2;
  }
  auto reply = http_post(*url, "/v1/reload", options.token, "{}", kReloadTimeout);
  if (!reply) {
    err << "vigil reload: cannot reach vigil at " << options.admin_url << ": "
        << reply.error().message << " (is `vigil serve` running? set --admin or VIGIL_ADMIN)\n";
    return 2;
  }
  const boost::json::object doc = parsed_object(reply->body);
  if (reply->status == 200) {
    out << "reloaded: the new configuration is applied\n";
    // Warnings a daemon may add (a change that needs a restart, say).
    for (const boost::json::value& w : list(doc, "warnings")) {
      if (w.is_string()) out << "warning: " << printable(std::string(w.as_string())) << "\n";
    }
    return 0;
  }
  const std::string fault = str(doc, "faultstring");
  const std::string why = fault.empty() ? reply->body.substr(0, 200) : fault;
  if (reply->status == 401) {
    err << "vigil reload: vigil refused the token (401: " << printable(why)
        << "): check --token-file / VIGIL_TOKEN\n";
    return 1;
  }
  if (reply->status == 409) {
    // The reason, then one line per error of the file ("vigil.yaml:12: error: ...").
    const size_t first = why.find('\n');
    err << "vigil reload: refused: " << printable(why.substr(0, first)) << "\n";
    for (size_t at = first; at < why.size();) {
      const size_t end = std::min(why.find('\n', at + 1), why.size());
      err << "  " << printable(why.substr(at + 1, end - at - 1)) << "\n";
      at = end;
    }
    return 1;
  }
  err << "vigil reload: vigil answered " << reply->status << ": " << printable(why) << "\n";
  return 1;
}

}  // namespace vigil::cli
