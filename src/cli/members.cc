// `vigil members`: the member table and its JSON form, from the /v1/status document.
#include <fmt/format.h>

#include <boost/json/serialize.hpp>

#include "base/duration.h"
#include "cli/check_code.h"
#include "cli/commands.h"
#include "cli/status_doc.h"
#include "cli/table.h"

namespace vigil::cli {
namespace {

namespace json = boost::json;

struct PoolMember {
  const json::object* pool;
  const json::object* member;
};

// The members of one pool (by name or id) or of all, across load balancers; an unknown pool lists
// those there are.
Result<std::vector<PoolMember>> select(const json::object& doc,
                                       const std::optional<std::string>& pool) {
  std::vector<PoolMember> out;
  std::string names;
  bool found = false;
  for (const json::object* lb : load_balancer_docs(doc)) {
    for (const json::value& pv : list(*lb, "pools")) {
      if (!pv.is_object()) continue;
      const json::object& p = pv.as_object();
      names += (names.empty() ? "" : ", ") + str(p, "name");
      if (pool && *pool != str(p, "name") && *pool != str(p, "id")) continue;
      found = true;
      for (const json::value& mv : list(p, "members")) {
        if (mv.is_object()) out.push_back({&p, &mv.as_object()});
      }
    }
  }
  if (pool && !found) {
    return fail(fmt::format("no pool named {}; pools: {}", *pool, names.empty() ? "none" : names));
  }
  return out;
}

// Check details can hold a body's first bytes: keep table cells on one line, and short.
std::string one_line(std::string text, size_t max_bytes = 120) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (text.size() <= max_bytes) return text;
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

// "drain, set 12s ago by CLI": the operator's word, before what the checks say.
std::string override_reason(const json::object& o, std::optional<int64_t> now) {
  std::string what = str(o, "state") == "ready" ? "" : str(o, "state");
  if (!str(o, "weight").empty())
    what += (what.empty() ? "" : ", ") + ("weight " + str(o, "weight"));
  const auto at = unix_seconds(str(o, "set_at"));
  const std::string ago =
      at && now ? " " + short_age(std::max<int64_t>(0, *now - *at)) + " ago" : "";
  return fmt::format("{}, set{} by {}", what, ago, one_line(str(o, "by"), 64));
}

std::string check_reason(const PoolMember& pm) {
  const json::object& m = *pm.member;
  if (!flag(m, "admin_state_up")) return "disabled";
  if (const json::object* check = child(m, "check")) return one_line(str(*check, "reason"));
  return child(*pm.pool, "health_monitor") ? "not checked yet" : "no health monitor";
}

std::string reason(const PoolMember& pm, std::optional<int64_t> now) {
  const json::object* o = child(*pm.member, "admin_override");
  if (o == nullptr) return check_reason(pm);
  return override_reason(*o, now) + "; " + check_reason(pm);
}

// The last check's code and duration; "-" when there was none.
std::pair<std::string, std::string> last_check(const PoolMember& pm) {
  const json::object* check = child(*pm.member, "check");
  if (check == nullptr) return {"-", "-"};
  const json::object* hm = child(*pm.pool, "health_monitor");
  const json::value* ms = check->if_contains("duration_ms");
  return {check_code(hm ? str(*hm, "type") : "", *check),
          ms && ms->is_number() ? check_duration(ms->to_number<double>()) : "-"};
}

// The weight in use: an operator's weight, with the configured one beside it ("3 (config 1)").
std::string weight(const json::object& m) {
  const json::object* o = child(m, "admin_override");
  if (o == nullptr || str(*o, "weight").empty()) return str(m, "weight");
  return fmt::format("{} (config {})", str(*o, "weight"), str(m, "weight"));
}

std::string since(const json::object& m) {
  if (str(m, "state_since").empty()) return "-";
  return short_age(num(m, "state_seconds"));
}

}  // namespace

Result<std::string> format_members_table(std::string_view status_json,
                                         std::optional<std::string> pool) {
  auto doc = parse_status(status_json);
  if (!doc) return std::unexpected(doc.error());
  auto members = select(*doc, pool);
  if (!members) return std::unexpected(members.error());
  const std::optional<int64_t> now = unix_seconds(str(*doc, "generated_at"));
  std::vector<std::vector<std::string>> rows;
  for (const PoolMember& pm : *members) {
    const json::object& m = *pm.member;
    auto [code, duration] = last_check(pm);
    rows.push_back({str(*pm.pool, "name"), str(m, "name"), str(m, "address"),
                    str(m, "protocol_port"), weight(m), str(m, "operating_status"),
                    str(m, "health"), flag(m, "in_rotation") ? "yes" : "no", std::move(code),
                    std::move(duration), reason(pm, now), since(m)});
  }
  return render_table({"pool", "name", "address", "protocol_port", "weight", "operating_status",
                       "health", "in_rotation", "check", "duration", "reason", "since"},
                      rows);
}

Result<std::string> format_members_json(std::string_view status_json,
                                        std::optional<std::string> pool) {
  auto doc = parse_status(status_json);
  if (!doc) return std::unexpected(doc.error());
  auto members = select(*doc, pool);
  if (!members) return std::unexpected(members.error());
  static constexpr const char* kOctaviaFields[] = {
      "id",          "name",           "address",          "protocol_port",       "weight",
      "backup",      "admin_state_up", "operating_status", "provisioning_status", "monitor_address",
      "monitor_port"};
  std::string out = "[";
  for (const PoolMember& pm : *members) {
    const json::object& m = *pm.member;
    json::object o;
    for (const char* field : kOctaviaFields) {
      const json::value* v = m.if_contains(field);
      o[field] = v ? *v : json::value();
    }
    o["pool"] = str(*pm.pool, "name");
    o["pool_id"] = str(*pm.pool, "id");
    o["health"] = str(m, "health");
    o["in_rotation"] = flag(m, "in_rotation");
    // vigil's own objects, as /v1/status has them (null when absent): the runtime override, the
    // last check, and what the member's last time out of service cost clients.
    for (const char* field : {"admin_override", "check", "last_disruption"}) {
      const json::value* v = m.if_contains(field);
      o[field] = v ? *v : json::value();
    }
    out += (out.size() == 1 ? "\n  " : ",\n  ") + json::serialize(o);
  }
  return out + (out.size() == 1 ? "]\n" : "\n]\n");
}

}  // namespace vigil::cli
