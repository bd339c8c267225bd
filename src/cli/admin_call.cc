#include "cli/admin_call.h"

#include <fmt/format.h>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <chrono>

#include "cli/client.h"

namespace vigil::cli {
namespace {

using namespace std::chrono_literals;

constexpr auto kTimeout = 5000ms;

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

std::string shown_url(const ClientOptions& options) {
  std::string shown = options.admin_url;
  while (!shown.empty() && shown.back() == '/') shown.pop_back();
  return shown;
}

Called<std::string> answer(const ClientOptions& options, Result<HttpReply> reply) {
  const std::string shown = shown_url(options);
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

}  // namespace

Called<std::string> fetch_status(const ClientOptions& options) {
  return get_json(options, "/v1/status");
}

Called<std::string> get_json(const ClientOptions& options, std::string_view path) {
  auto url = parse_admin_url(options.admin_url);
  if (!url) return std::unexpected(Failure{2, url.error().message});
  return answer(options, http_get(*url, path, options.token, kTimeout));
}

Called<std::string> put_json(const ClientOptions& options, std::string_view path,
                             std::string_view json_body) {
  auto url = parse_admin_url(options.admin_url);
  if (!url) return std::unexpected(Failure{2, url.error().message});
  return answer(options, http_put(*url, path, options.token, json_body, kTimeout));
}

Called<std::string> post_json(const ClientOptions& options, std::string_view path,
                              std::string_view json_body) {
  auto url = parse_admin_url(options.admin_url);
  if (!url) return std::unexpected(Failure{2, url.error().message});
  return answer(options, http_post(*url, path, options.token, json_body, kTimeout));
}

}  // namespace vigil::cli
