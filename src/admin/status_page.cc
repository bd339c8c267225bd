#include "admin/status_page.h"

#include <fmt/format.h>

#include "admin/text.h"
#include "model/config.h"

namespace vigil::admin {
namespace {

constexpr std::string_view kHead = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="5">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vigil: {}</title>
<style>
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }}
table {{ border-collapse: collapse; margin-bottom: 1.5em; }}
th, td {{ border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }}
th {{ background: #f3f3f3; }}
.st {{ font-weight: bold; padding: 1px 6px; border-radius: 3px; color: #fff; }}
.ONLINE {{ background: #2e7d32; }} .DEGRADED {{ background: #ef6c00; }}
.ERROR {{ background: #c62828; }} .DRAINING {{ background: #1565c0; }}
.OFFLINE, .NO_MONITOR {{ background: #757575; }}
.muted {{ color: #777; }}
</style></head><body>
)";

std::string badge(model::OperatingStatus s) {
  const std::string_view name = model::to_string(s);
  return fmt::format(R"(<span class="st {}">{}</span>)", name, name);
}

std::string cell(std::string_view text) { return "<td>" + html_escape(text) + "</td>"; }

std::string monitor_text(const model::PoolView& p) {
  if (!p.config.health_monitor) return "no health monitor";
  const model::HealthMonitor& hm = *p.config.health_monitor;
  std::string out(model::to_string(hm.type));
  if (model::uses_http(hm.type)) {
    out += " " + hm.path + " expecting " + hm.expected_codes.to_string();
  }
  return out;
}

std::string member_row(const model::PoolView& p, const model::MemberView& m, model::WallTime now) {
  std::string reason = m.last_check ? model::describe(*m.last_check) : "not checked yet";
  if (!m.config.enabled) reason = "disabled";
  // The operator's word comes first: it is why the member is out, whatever its checks say.
  if (m.admin_override) reason = override_text(*m.admin_override, now) + "; " + reason;
  std::string since = is_set(m.state_since) ? short_age(seconds_between(m.state_since, now)) : "-";
  std::string failures;
  if (p.config.health_monitor && m.consecutive_failures > 0) {
    // Failures go on counting after the member is down; "11/3" would read as a bug.
    const int threshold = p.config.health_monitor->unhealthy_threshold;
    failures = m.consecutive_failures <= threshold
                   ? fmt::format(" ({}/{} failures)", m.consecutive_failures, threshold)
                   : fmt::format(" ({} failures)", m.consecutive_failures);
  }
  return "<tr>" + cell(m.config.name) + cell(host_port(m.config.address, m.config.port)) + "<td>" +
         badge(m.operating_status) + "</td>" + cell(health_name(m.health)) +
         cell(m.in_rotation ? "yes" : "no") + cell(reason + failures) + cell(since) +
         cell(std::to_string(m.active_connections)) + cell(std::to_string(m.total_connections)) +
         cell(std::to_string(m.connect_failures)) + "</tr>\n";
}

std::string pool_section(const model::PoolView& p, model::WallTime now) {
  std::string out = fmt::format(
      "<h2>pool {} {}</h2>\n<p class=\"muted\">{}, {}{}</p>\n", html_escape(p.config.name),
      badge(p.operating_status), html_escape(model::to_string(p.config.algorithm)),
      html_escape(monitor_text(p)),
      p.fail_open_active ? ", <b>fail-open: routing to the members that take connections</b>" : "");
  out +=
      "<table><tr><th>member</th><th>address</th><th>status</th><th>health</th>"
      "<th>in rotation</th><th>last check</th><th>in state</th><th>active</th><th>total</th>"
      "<th>connect failures</th></tr>\n";
  for (const model::MemberView& m : p.members) out += member_row(p, m, now);
  return out + "</table>\n";
}

std::string listeners_section(const model::LoadBalancerView& lb) {
  if (lb.listeners.empty()) return "";
  std::string out =
      "<h2>listeners</h2>\n<table><tr><th>listener</th><th>bound</th><th>pool</th>"
      "<th>status</th><th>active</th><th>total</th></tr>\n";
  for (const model::ListenerView& l : lb.listeners) {
    const std::string bound =
        l.bound.empty() ? host_port(l.config.bind_address, l.config.port) : l.bound;
    out += "<tr>" + cell(l.config.name) + cell(bound) + cell(l.config.pool) + "<td>" +
           badge(l.operating_status) + "</td>" + cell(std::to_string(l.active_connections)) +
           cell(std::to_string(l.total_connections)) + "</tr>\n";
  }
  return out + "</table>\n";
}

std::string transitions_section(const model::LoadBalancerView& lb) {
  std::string out = "<h2>recent transitions</h2>\n";
  if (lb.recent_transitions.empty()) return out + "<p class=\"muted\">none yet</p>\n";
  out += "<table><tr><th>at (UTC)</th><th>what</th></tr>\n";
  for (auto it = lb.recent_transitions.rbegin(); it != lb.recent_transitions.rend(); ++it) {
    out += "<tr>" + cell(iso8601_utc(it->at)) + cell(it->message) + "</tr>\n";
  }
  return out + "</table>\n";
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string status_page(const std::vector<model::LoadBalancerView>& lbs, model::WallTime now) {
  std::string out = fmt::format(kHead, html_escape(lbs.empty() ? "vigil" : lbs.front().name));
  for (const model::LoadBalancerView& lb : lbs) {
    const std::string origin = lb.source_file.empty() ? "created through the API" : lb.source_file;
    out += fmt::format(
        "<h1>{} {}</h1>\n<p class=\"muted\">{} &middot; started {} &middot; "
        "shown {} (UTC), refreshing every 5 s</p>\n",
        html_escape(lb.name.empty() ? lb.id : lb.name), badge(lb.operating_status),
        html_escape(origin), is_set(lb.started_at) ? iso8601_utc(lb.started_at) : "-",
        iso8601_utc(now));
    out += listeners_section(lb);
    for (const model::PoolView& p : lb.pools) out += pool_section(p, now);
    out += transitions_section(lb);
  }
  return out + "</body></html>\n";
}

std::string status_page(const model::LoadBalancerView& lb, model::WallTime now) {
  return status_page(std::vector<model::LoadBalancerView>{lb}, now);
}

}  // namespace vigil::admin
