// `vigil sessions [--pool P] [--member M] [--json]` and `vigil sessions kill --member M [--pool
// P]`: GET /v1/sessions and POST /v1/sessions/kill of a running daemon.
#include <fmt/format.h>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include "base/duration.h"
#include "cli/admin_call.h"
#include "cli/commands.h"
#include "cli/status_doc.h"
#include "cli/table.h"

namespace vigil::cli {
namespace {

namespace json = boost::json;

Result<json::object> parse_sessions(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(json::string_view(text.data(), text.size()), ec);
  if (ec) return fail("vigil answered something that is not JSON: " + ec.message());
  if (!v.is_object() || !v.as_object().contains("sessions")) {
    return fail("vigil's answer to /v1/sessions has no \"sessions\": is this a vigil admin API?");
  }
  return std::move(v.as_object());
}

std::string query_value(std::string_view text) {
  return boost::urls::encode(text, boost::urls::unreserved_chars);
}

// A fractional age in whole seconds: "12s", "3m4s".
std::string age(const json::object& s) {
  const json::value* v = s.if_contains("age_seconds");
  return v && v->is_number() ? short_age(static_cast<int64_t>(v->to_number<double>())) : "-";
}

}  // namespace

std::string sessions_path(const std::string& pool, const std::string& member) {
  std::string query;
  if (!pool.empty()) query += "pool=" + query_value(pool);
  if (!member.empty()) query += (query.empty() ? "" : "&") + ("member=" + query_value(member));
  return query.empty() ? "/v1/sessions" : "/v1/sessions?" + query;
}

Result<std::string> format_sessions_table(std::string_view sessions_json) {
  auto doc = parse_sessions(sessions_json);
  if (!doc) return std::unexpected(doc.error());
  std::vector<std::vector<std::string>> rows;
  for (const json::value& v : list(*doc, "sessions")) {
    if (!v.is_object()) continue;
    const json::object& s = v.as_object();
    rows.push_back({str(s, "client"), str(s, "listener"), str(s, "pool"), str(s, "member"),
                    str(s, "member_address"), age(s), str(s, "bytes_in"), str(s, "bytes_out")});
  }
  std::string out = render_table(
      {"client", "listener", "pool", "member", "member_address", "age", "bytes_in", "bytes_out"},
      rows);
  const int64_t total = doc->contains("total") ? num(*doc, "total") : std::ssize(rows);
  if (flag(*doc, "truncated") || total > std::ssize(rows)) {
    out += fmt::format("{} of {} sessions shown (vigil truncated the list)\n", rows.size(), total);
  } else {
    out += fmt::format("{} session{}\n", total, total == 1 ? "" : "s");
  }
  return out;
}

Result<std::string> format_sessions_json(std::string_view sessions_json) {
  auto doc = parse_sessions(sessions_json);
  if (!doc) return std::unexpected(doc.error());
  return pretty_json(*doc);
}

int run_sessions(const ClientOptions& options, const std::string& pool, const std::string& member,
                 bool json, std::ostream& out, std::ostream& err) {
  auto body = get_json(options, sessions_path(pool, member));
  if (!body) {
    err << body.error().message << "\n";
    return body.error().exit_code;
  }
  auto text = json ? format_sessions_json(*body) : format_sessions_table(*body);
  if (!text) {
    err << text.error().message << "\n";
    return 1;
  }
  out << *text;
  return 0;
}

int run_sessions_kill(const ClientOptions& options, const std::string& pool,
                      const std::string& member, std::ostream& out, std::ostream& err) {
  json::object request{{"member", member}};
  if (!pool.empty()) request["pool"] = pool;
  auto body = post_json(options, "/v1/sessions/kill", json::serialize(request));
  if (!body) {
    err << body.error().message << "\n";
    return body.error().exit_code;
  }
  boost::system::error_code ec;
  const json::value answer = json::parse(*body, ec);
  if (ec || !answer.is_object() || !answer.as_object().contains("killed")) {
    err << "vigil's answer to /v1/sessions/kill has no \"killed\": " << body->substr(0, 200)
        << "\n";
    return 1;
  }
  const int64_t killed = num(answer.as_object(), "killed");
  out << fmt::format("closed {} session{} of member {}{}\n", killed, killed == 1 ? "" : "s", member,
                     pool.empty() ? "" : " in pool " + pool);
  return 0;
}

}  // namespace vigil::cli
