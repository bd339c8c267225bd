#include "admin/status_page.h"

#include <fmt/format.h>

#include "admin/page_style.h"
#include "admin/text.h"
#include "model/config.h"

namespace vigil::admin {
namespace {

std::string head(std::string_view title) {
  return fmt::format(R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="5">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vigil: {}</title>
<style>{}</style></head><body>
)",
                     html_escape(title), kPageStyle);
}

std::string header(const PageUser& user) {
  std::string out = "<header><span class=\"brand\">vigil</span>";
  if (user.signed_in) {
    out += fmt::format(
        R"(<span class="who" id="who">signed in with the {} token</span>)"
        R"(<form method="post" action="/logout"><input type="hidden" name="csrf" value="{}">)"
        R"(<button type="submit" id="logout">Sign out</button></form>)",
        user.access == Access::kWrite ? "read-write" : "read-only", html_escape(user.csrf));
  }
  return out + "</header>\n<main>\n";
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

std::string pool_section(const model::PoolView& p, model::WallTime now, const PageUser& user) {
  std::string out = fmt::format(
      "<h2>pool {} {}</h2>\n<p class=\"muted\">{}, {}{}</p>\n", html_escape(p.config.name),
      status_badge(p.operating_status), html_escape(model::to_string(p.config.algorithm)),
      html_escape(monitor_text(p)),
      p.fail_open_active ? ", <b>fail-open: routing to the members that take connections</b>" : "");
  return out + members_table(p, now, user);
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
           status_badge(l.operating_status) + "</td>" + cell(std::to_string(l.active_connections)) +
           cell(std::to_string(l.total_connections)) + "</tr>\n";
  }
  return out + "</table>\n";
}

std::string transitions_section(const model::LoadBalancerView& lb) {
  std::string out = "<h2>recent transitions</h2>\n";
  if (lb.recent_transitions.empty()) return out + "<p class=\"muted\">none yet</p>\n";
  out += "<table class=\"transitions\"><tr><th>at (UTC)</th><th>what</th></tr>\n";
  for (auto it = lb.recent_transitions.rbegin(); it != lb.recent_transitions.rend(); ++it) {
    out += "<tr>" + cell(iso8601_utc(it->at)) + cell(it->message) + "</tr>\n";
  }
  return out + "</table>\n";
}

}  // namespace

std::string status_badge(model::OperatingStatus s) {
  const std::string_view name = model::to_string(s);
  return fmt::format(R"(<span class="st {}">{}</span>)", name, name);
}

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

std::string status_page(const std::vector<model::LoadBalancerView>& lbs, model::WallTime now,
                        const PageUser& user) {
  std::string out = head(lbs.empty() ? "vigil" : lbs.front().name) + header(user);
  for (const model::LoadBalancerView& lb : lbs) {
    const std::string origin = lb.source_file.empty() ? "created through the API" : lb.source_file;
    out += fmt::format(
        "<h1>{} {}</h1>\n<p class=\"muted\">{} &middot; started {} &middot; "
        "shown {} (UTC), refreshing every 5 s</p>\n",
        html_escape(lb.name.empty() ? lb.id : lb.name), status_badge(lb.operating_status),
        html_escape(origin), is_set(lb.started_at) ? iso8601_utc(lb.started_at) : "-",
        iso8601_utc(now));
    out += listeners_section(lb);
    for (const model::PoolView& p : lb.pools) out += pool_section(p, now, user);
    out += transitions_section(lb);
  }
  return out + "</main></body></html>\n";
}

std::string status_page(const model::LoadBalancerView& lb, model::WallTime now,
                        const PageUser& user) {
  return status_page(std::vector<model::LoadBalancerView>{lb}, now, user);
}

}  // namespace vigil::admin
