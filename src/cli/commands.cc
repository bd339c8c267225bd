#include "cli/commands.h"

#include <fmt/format.h>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <chrono>

#include "cli/client.h"

namespace vigil::cli {
namespace {

using namespace std::chrono_literals;

constexpr auto kTimeout = 5000ms;

struct Failure {
  int exit_code;
  std::string message;
};

std::string fault_text(const std::string& body) {
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(body, ec);
  if (!ec && v.is_object()) {
    if (const auto* f = v.as_object().if_contains("faultstring"); f && f->is_string()) {
      return std::string(f->as_string());
    }
  }
  return body.substr(0, 200);
}

// GET /v1/status, or what to tell the user and the exit code.
std::expected<std::string, Failure> fetch_status(const ClientOptions& options) {
  std::string shown = options.admin_url;
  while (!shown.empty() && shown.back() == '/') shown.pop_back();
  auto url = parse_admin_url(options.admin_url);
  if (!url) return std::unexpected(Failure{2, url.error().message});
  auto reply = http_get(*url, "/v1/status", options.token, kTimeout);
  if (!reply) {
    return std::unexpected(Failure{
        2, fmt::format("cannot reach vigil at {}: {} (is `vigil serve` running? set --admin or "
                       "VIGIL_ADMIN)",
                       shown, reply.error().message)});
  }
  if (reply->status == 401) {
    return std::unexpected(
        Failure{1, fmt::format("vigil at {} refused the token (401: {}): check --token-file / "
                               "VIGIL_TOKEN",
                               shown, fault_text(reply->body))});
  }
  if (reply->status != 200) {
    return std::unexpected(Failure{1, fmt::format("vigil at {} answered {}: {}", shown,
                                                  reply->status, fault_text(reply->body))});
  }
  return std::move(reply->body);
}

int print(const Result<std::string>& text, std::ostream& out, std::ostream& err) {
  if (!text) {
    err << text.error().message << "\n";
    return 1;
  }
  out << *text;
  return 0;
}

}  // namespace

int run_members(const ClientOptions& options, std::optional<std::string> pool, bool json,
                std::ostream& out, std::ostream& err) {
  auto body = fetch_status(options);
  if (!body) {
    err << body.error().message << "\n";
    return body.error().exit_code;
  }
  return print(json ? format_members_json(*body, pool) : format_members_table(*body, pool), out,
               err);
}

int run_status(const ClientOptions& options, bool json, std::ostream& out, std::ostream& err) {
  auto body = fetch_status(options);
  if (!body) {
    err << body.error().message << "\n";
    return body.error().exit_code;
  }
  return print(json ? format_status_tree_json(*body) : format_status_tree(*body), out, err);
}

}  // namespace vigil::cli
