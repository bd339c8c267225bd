// `vigil member drain|maint|ready|weight`: finds the member in /v1/status, PUTs its override to
// /v1/pools/{pool}/members/{member}/admin, and with drain --wait polls until its sessions end.
#include <fmt/format.h>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <ostream>
#include <thread>

#include "cli/admin_call.h"
#include "cli/commands.h"
#include "cli/printable.h"
#include "cli/status_doc.h"

namespace vigil::cli {
namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr auto kPollEvery = 200ms;
constexpr auto kReportEvery = 1s;  // how often --wait says how many sessions remain

std::unexpected<Failure> failure(int code, std::string message) {
  return std::unexpected(Failure{code, std::move(message)});
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// "pool masters member master-01", or "2 members (api/master-01, mcs/master-01)".
std::string described(const std::vector<MemberRef>& refs) {
  if (refs.size() == 1) return fmt::format("pool {} member {}", refs[0].pool, refs[0].member);
  std::vector<std::string> names;
  for (const MemberRef& r : refs) names.push_back(r.pool + "/" + r.member);
  return fmt::format("{} members ({})", refs.size(), joined(names));
}

std::string request_body(const MemberCommand& c) {
  json::object o{{"by", c.by}};
  if (c.verb == "weight") {
    o["weight"] = *c.weight;
  } else {
    o["state"] = c.verb;
  }
  return json::serialize(o);
}

// "pool masters member master-01: drain, set by CLI; DRAINING, 3 active sessions".
std::string summary(const MemberRef& ref, const std::string& answer) {
  boost::system::error_code ec;
  const json::value doc = json::parse(answer, ec);
  const json::object* m = !ec && doc.is_object() ? child(doc.as_object(), "member") : nullptr;
  if (m == nullptr) return fmt::format("pool {} member {}: done", ref.pool, ref.member);
  const json::object* o = child(*m, "admin_override");
  std::string what = "ready (no override)";
  if (o != nullptr) {
    what = str(*o, "state") == "ready" ? "" : str(*o, "state");
    if (!str(*o, "weight").empty())
      what += (what.empty() ? "" : ", ") + ("weight " + str(*o, "weight"));
    what += ", set by " + str(*o, "by");
  }
  return fmt::format("pool {} member {}: {}; {}, {} active sessions", ref.pool, ref.member, what,
                     str(*m, "operating_status"), num(*m, "active_connections"));
}

// Polls until none of `refs` has an active session, or the timeout.
int wait_drained(const ClientOptions& options, const std::vector<MemberRef>& refs,
                 std::chrono::milliseconds timeout, std::ostream& out, std::ostream& err) {
  const auto deadline = Clock::now() + timeout;
  std::optional<Clock::time_point> reported;  // when it last said how many remain
  for (;;) {
    auto body = fetch_status(options);
    if (!body) {
      err << body.error().message << "\n";
      return body.error().exit_code;
    }
    int64_t left = 0;
    std::vector<std::string> busy;  // "api/master-01 (3)"
    for (const MemberRef& ref : refs) {
      const auto n = active_sessions(*body, ref.member_id);
      if (!n) {
        err << fmt::format("pool {} member {} is no longer configured\n", ref.pool, ref.member);
        return 1;
      }
      left += *n;
      if (*n > 0) busy.push_back(fmt::format("{}/{} ({})", ref.pool, ref.member, *n));
    }
    if (left == 0) {
      out << fmt::format("{}: no active sessions left\n", described(refs));
      return 0;
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      err << fmt::format("timed out after {}s: {} active sessions remain: {}\n",
                         std::chrono::duration<double>(timeout).count(), left, joined(busy));
      return 1;
    }
    if (!reported || now - *reported >= kReportEvery) {
      out << fmt::format("{} active sessions remain: {}\n", left, joined(busy)) << std::flush;
      reported = now;
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(kPollEvery, deadline - now));
  }
}

}  // namespace

std::expected<std::vector<MemberRef>, Failure> find_member_refs(std::string_view status_json,
                                                                std::string_view target) {
  auto doc = parse_status(status_json);
  if (!doc) return failure(1, doc.error().message);
  std::string_view pool_key, member_key = target;
  if (const size_t slash = target.find('/'); slash != std::string_view::npos) {
    pool_key = target.substr(0, slash);
    member_key = target.substr(slash + 1);
  }
  std::vector<MemberRef> hits;
  for (const json::object* lb : load_balancer_docs(*doc)) {
    for (const json::value& pv : list(*lb, "pools")) {
      if (!pv.is_object()) continue;
      const json::object& p = pv.as_object();
      if (!pool_key.empty() && pool_key != str(p, "name") && pool_key != str(p, "id")) continue;
      for (const json::value& mv : list(p, "members")) {
        if (!mv.is_object()) continue;
        const json::object& m = mv.as_object();
        if (member_key != str(m, "name") && member_key != str(m, "id") &&
            member_key != str(m, "address")) {
          continue;
        }
        hits.push_back({str(p, "id"), str(p, "name"), str(m, "id"), str(m, "name")});
      }
    }
  }
  if (hits.empty()) {
    return failure(1, pool_key.empty()
                          ? fmt::format("no member named {} in any pool", member_key)
                          : fmt::format("no member named {} in a pool {}", member_key, pool_key));
  }
  return hits;
}

std::optional<int64_t> active_sessions(std::string_view status_json, std::string_view member_id) {
  auto doc = parse_status(status_json);
  if (!doc) return std::nullopt;
  for (const json::object* lb : load_balancer_docs(*doc)) {
    for (const json::value& pv : list(*lb, "pools")) {
      if (!pv.is_object()) continue;
      for (const json::value& mv : list(pv.as_object(), "members")) {
        if (mv.is_object() && str(mv.as_object(), "id") == member_id) {
          return num(mv.as_object(), "active_connections");
        }
      }
    }
  }
  return std::nullopt;
}

int run_member(const ClientOptions& options, const MemberCommand& command, std::ostream& out,
               std::ostream& err) {
  auto status = fetch_status(options);
  if (!status) {
    err << status.error().message << "\n";
    return status.error().exit_code;
  }
  auto refs = find_member_refs(*status, command.target);
  if (!refs) {
    err << "vigil member " << command.verb << ": " << printable(refs.error().message) << "\n";
    return refs.error().exit_code;
  }
  // Every pool the host is in: a master behind the API and the machine-config server is drained
  // from both by one command. A failure on one does not stop the others; the exit says so.
  int code = 0;
  for (const MemberRef& ref : *refs) {
    const std::string path =
        fmt::format("/v1/pools/{}/members/{}/admin", ref.pool_id, ref.member_id);
    auto answer = put_json(options, path, request_body(command));
    if (!answer) {
      err << fmt::format("pool {} member {}: ", ref.pool, ref.member) << answer.error().message
          << "\n";
      code = std::max(code, answer.error().exit_code);
      continue;
    }
    out << printable(summary(ref, *answer)) << "\n" << std::flush;
  }
  if (code != 0) return code;
  if (command.wait) return wait_drained(options, *refs, *command.wait, out, err);
  return 0;
}

}  // namespace vigil::cli
