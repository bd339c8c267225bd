// `vigil status`: the load balancer > listener > pool > member tree, as text or as Octavia's
// status tree JSON, from the /v1/status document.
#include <fmt/format.h>

#include <boost/json/serialize.hpp>

#include "base/duration.h"
#include "cli/commands.h"
#include "cli/printable.h"
#include "cli/status_doc.h"

namespace vigil::cli {
namespace {

namespace json = boost::json;

// Names and reasons can come from the API: never raw to the terminal.
std::string shown(const json::object& o, std::string_view key) { return printable(str(o, key)); }

const json::object* find_pool(const json::object& doc, const std::string& id) {
  for (const json::value& p : list(doc, "pools")) {
    if (p.is_object() && str(p.as_object(), "id") == id) return &p.as_object();
  }
  return nullptr;
}

// With members_from: whose members the pool runs with, and why not the API's.
std::string members_source(const json::object& p) {
  const json::object* s = child(p, "members_from");
  if (s == nullptr) return "";
  const std::string state = str(*s, "state");
  if (state == "following") {
    return fmt::format(", members from the API ({})", num(*s, "members"));
  }
  const std::string error = shown(*s, "error");
  const std::string why = error.empty() ? "" : ": " + error;
  if (state == "stale") {
    return fmt::format(", members from the API ({}) NOT CONFIRMED for {}{}", num(*s, "members"),
                       short_age(num(*s, "unconfirmed_seconds")), why);
  }
  return fmt::format(", the file's members until the API answers{}", why);
}

std::string pool_line(const json::object& p) {
  std::string monitor = "no monitor";
  if (const json::object* hm = child(p, "health_monitor")) {
    monitor = str(*hm, "type");
    if (monitor == "HTTP" || monitor == "HTTPS") monitor += " " + shown(*hm, "path");
  }
  return fmt::format("pool {} {} {} ({}){}{}", shown(p, "name"), str(p, "algorithm"), monitor,
                     str(p, "operating_status"),
                     flag(p, "fail_open_active") ? " fail-open: routing to every member" : "",
                     members_source(p));
}

// What a member's line adds after its status: why it is not plainly serving, and since when.
std::string member_detail(const json::object& p, const json::object& m) {
  const std::string status = str(m, "operating_status");
  const json::object* check = child(m, "check");
  const std::string why = check ? shown(*check, "reason") : "";
  const std::string age =
      str(m, "state_since").empty() ? "" : " for " + short_age(num(m, "state_seconds"));
  const json::object* hm = child(p, "health_monitor");
  const int64_t failures = num(m, "consecutive_failures");
  std::string counts;
  if (hm && failures > 0) {
    const int64_t threshold = num(*hm, "unhealthy_threshold");
    counts = failures <= threshold ? fmt::format(" ({}/{} failures)", failures, threshold)
                                   : fmt::format(" ({} failures)", failures);
  }
  if (!flag(m, "admin_state_up")) return "disabled";
  if (status == "ERROR") {
    std::string out = why + counts + age;
    const int64_t passes = num(m, "consecutive_successes");
    if (hm && passes > 0) {
      out += fmt::format(", recovering ({}/{} passes)", passes, num(*hm, "healthy_threshold"));
    }
    return out;
  }
  if (status == "OFFLINE") return "not checked yet";
  if (status == "DRAINING") return (num(m, "weight") == 0 ? "weight 0" : why) + age;
  if (failures > 0) return "failing: " + why + counts;
  if (!flag(m, "in_rotation")) return "not in rotation";
  return "";
}

void add_members(const json::object& p, const std::string& indent, std::string& out) {
  const json::array& members = list(p, "members");
  for (size_t i = 0; i < members.size(); ++i) {
    if (!members[i].is_object()) continue;
    const json::object& m = members[i].as_object();
    const std::string detail = member_detail(p, m);
    out += fmt::format("{}{} {} {} {}{}\n", indent, i + 1 == members.size() ? "└─" : "├─",
                       shown(m, "name"), host_port(shown(m, "address"), num(m, "protocol_port")),
                       str(m, "operating_status"), detail.empty() ? "" : "  " + detail);
  }
}

std::string listener_address(const json::object& l) {
  const int64_t port = num(l, "protocol_port");
  if (port == 0 && !str(l, "bound").empty()) return str(l, "bound");
  const std::string bind = str(l, "bind_address");
  return bind.empty() ? fmt::format(":{}", port) : host_port(bind, port);
}

// The keys Octavia's status tree keeps of an object, plus provisioning_status.
json::object octavia_status(const json::object& o, std::initializer_list<const char*> keys) {
  json::object out;
  for (const char* k : keys) out[k] = o.contains(k) ? o.at(k) : json::value();
  out["provisioning_status"] = "ACTIVE";
  return out;
}

json::object octavia_pool_status(const json::object& p) {
  json::object out = octavia_status(p, {"id", "name", "operating_status"});
  // As the API's tree (Octavia 11): `health_monitor`, no key for a pool without one.
  if (const json::object* hm = child(p, "health_monitor")) {
    const json::object monitor = {{"id", str(*hm, "id")},
                                  {"name", str(p, "name")},
                                  {"type", str(*hm, "type")},
                                  {"operating_status", "ONLINE"},
                                  {"provisioning_status", "ACTIVE"}};
    out["health_monitor"] = monitor;
  }
  json::array members;
  for (const json::value& m : list(p, "members")) {
    if (m.is_object()) {
      members.push_back(octavia_status(
          m.as_object(), {"id", "name", "address", "protocol_port", "operating_status"}));
    }
  }
  out["members"] = std::move(members);
  return out;
}

}  // namespace

namespace {

// One load balancer's tree.
std::string tree_of(const json::object& doc) {
  const json::object* lb = child(doc, "loadbalancer");
  std::string out = fmt::format("loadbalancer {} ({})\n", lb ? shown(*lb, "name") : "?",
                                lb ? str(*lb, "operating_status") : "?");
  // The other nodes of `peers`, when the daemon has them: is each stream up, what it knows.
  for (const json::value& pv : list(doc, "peers")) {
    if (!pv.is_object()) continue;
    const json::object& p = pv.as_object();
    const auto flag = [&](std::string_view key) {
      const json::value* v = p.if_contains(key);
      return v != nullptr && v->is_bool() && v->as_bool();
    };
    const json::value* known = p.if_contains("sessions_known");
    out += fmt::format("peer {} {}: sending {}, receiving {}, {} sessions known{}\n",
                       shown(p, "name"), str(p, "address"), flag("sending") ? "up" : "DOWN",
                       flag("receiving") ? "up" : "DOWN",
                       known != nullptr && known->is_number() ? json::serialize(*known) : "?",
                       flag("synced") ? "" : " (not synced yet)");
  }
  // Listeners with their pool first, then the pools no listener uses.
  std::vector<std::pair<std::string, const json::object*>> top;
  for (const json::value& l : list(doc, "listeners")) {
    if (l.is_object()) top.emplace_back("listener", &l.as_object());
  }
  for (const json::value& p : list(doc, "pools")) {
    if (p.is_object() && list(p.as_object(), "listener_ids").empty()) {
      top.emplace_back("pool", &p.as_object());
    }
  }
  for (size_t i = 0; i < top.size(); ++i) {
    const bool last = i + 1 == top.size();
    const std::string branch = last ? "└─ " : "├─ ";
    const std::string indent = last ? "   " : "│  ";
    const json::object& o = *top[i].second;
    if (top[i].first == "pool") {
      out += branch + pool_line(o) + "\n";
      add_members(o, indent, out);
      continue;
    }
    out += fmt::format("{}listener {} {} ({})\n", branch, shown(o, "name"), listener_address(o),
                       str(o, "operating_status"));
    // redirect_from: whether the nftables redirect is in the kernel, and why.
    const json::object* pool = find_pool(doc, str(o, "default_pool_id"));
    if (const json::object* r = child(o, "redirect")) {
      const json::value* active = r->if_contains("active");
      out += fmt::format(
          "{}{}redirect from {} {} ({})\n", indent, pool ? "├─ " : "└─ ", shown(*r, "from"),
          active != nullptr && active->is_bool() && active->as_bool() ? "present" : "ABSENT",
          shown(*r, "reason"));
    }
    if (const json::object* p = pool) {
      out += indent + "└─ " + pool_line(*p) + "\n";
      add_members(*p, indent + "   ", out);
    }
  }
  return out;
}

}  // namespace

namespace {

// admin.store type etcd: one line on whether this node follows etcd, and why not.
std::string store_line(const json::object& doc) {
  const json::object* s = child(doc, "store");
  if (s == nullptr) return "";
  const auto flag = [&](std::string_view key) {
    const json::value* v = s->if_contains(key);
    return v != nullptr && v->is_bool() && v->as_bool();
  };
  const auto number = [&](std::string_view key) {
    const json::value* v = s->if_contains(key);
    return v != nullptr && v->is_number() ? json::serialize(*v) : std::string("?");
  };
  std::string out = fmt::format("store {}: ", shown(*s, "name"));
  if (flag("following")) {
    out += fmt::format("following at revision {}", number("revision"));
  } else {
    out += fmt::format("NOT following ({}; this node's copy is {} s old): {}",
                       flag("reachable") ? "reachable" : "unreachable", number("age_seconds"),
                       shown(*s, "last_error"));
  }
  if (!str(*s, "refusing_writes").empty()) {
    out += "; writes refused: " + shown(*s, "refusing_writes");
  }
  return out + "\n";
}

}  // namespace

Result<std::string> format_status_tree(std::string_view status_json) {
  auto parsed = parse_status(status_json);
  if (!parsed) return std::unexpected(parsed.error());
  std::string out = store_line(*parsed);
  for (const json::object* lb : load_balancer_docs(*parsed)) out += tree_of(*lb);
  return out;
}

Result<std::string> format_status_tree_json(std::string_view status_json) {
  auto parsed = parse_status(status_json);
  if (!parsed) return std::unexpected(parsed.error());
  const json::object& doc = *parsed;
  json::array listeners;
  for (const json::value& lv : list(doc, "listeners")) {
    if (!lv.is_object()) continue;
    json::object l = octavia_status(lv.as_object(), {"id", "name", "operating_status"});
    json::array pools;
    if (const json::object* p = find_pool(doc, str(lv.as_object(), "default_pool_id"))) {
      pools.push_back(octavia_pool_status(*p));
    }
    l["pools"] = std::move(pools);
    listeners.push_back(std::move(l));
  }
  // Pools only under their listeners, as Octavia's tree has them.
  const json::object* lb = child(doc, "loadbalancer");
  json::object root = lb ? octavia_status(*lb, {"id", "name", "operating_status"}) : json::object();
  root["listeners"] = std::move(listeners);
  return pretty_json(json::object{{"statuses", json::object{{"loadbalancer", std::move(root)}}}});
}

}  // namespace vigil::cli
