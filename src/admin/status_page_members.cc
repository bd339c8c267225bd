// The status page's member table: per member its state and reason, weight, last check's
// duration, the last hour's sparklines, flaps and downtime, the operator's override, and for a
// write session the drain/maint/ready and kill-sessions buttons.
#include <fmt/format.h>

#include "admin/sparkline.h"
#include "admin/status_page.h"
#include "admin/text.h"
#include "base/duration.h"

namespace vigil::admin {
namespace {

std::string cell(std::string_view text) { return "<td>" + html_escape(text) + "</td>"; }
std::string num(std::string_view text) {
  return "<td class=\"num\">" + html_escape(text) + "</td>";
}

std::string reason_of(const model::PoolView& p, const model::MemberView& m) {
  std::string reason = m.last_check ? model::describe(*m.last_check) : "not checked yet";
  if (!m.config.enabled) reason = "disabled";
  if (p.config.health_monitor && m.consecutive_failures > 0) {
    // Failures go on counting after the member is down; "11/3" would read as a bug.
    const int threshold = p.config.health_monitor->unhealthy_threshold;
    reason += m.consecutive_failures <= threshold
                  ? fmt::format(" ({}/{} failures)", m.consecutive_failures, threshold)
                  : fmt::format(" ({} failures)", m.consecutive_failures);
  }
  return reason;
}

std::string weight_cell(const model::MemberView& m) {
  if (m.admin_override && m.admin_override->weight) {
    return fmt::format(R"(<td class="num override" title="file: {}">{}</td>)", m.config.weight,
                       *m.admin_override->weight);
  }
  return num(std::to_string(m.config.weight));
}

std::string duration_text(const model::MemberView& m) {
  if (!m.last_check) return "-";
  const double ms = std::chrono::duration<double, std::milli>(m.last_check->duration).count();
  return ms < 10 ? fmt::format("{:.1f} ms", ms) : fmt::format("{:.0f} ms", ms);
}

std::string override_cell(const model::MemberView& m, model::WallTime now) {
  if (!m.admin_override) return R"(<td class="muted">-</td>)";
  return "<td class=\"override\">" + html_escape(override_text(*m.admin_override, now)) + "</td>";
}

std::string button(const model::PoolView& p, const model::MemberView& m, const PageUser& user,
                   std::string_view state, std::string_view label) {
  return fmt::format(R"(<form method="post" action="/page/member" class="act">)"
                     R"(<input type="hidden" name="csrf" value="{}">)"
                     R"(<input type="hidden" name="pool" value="{}">)"
                     R"(<input type="hidden" name="member" value="{}">)"
                     R"(<input type="hidden" name="state" value="{}">)"
                     R"(<button type="submit" class="{}" name="do" value="{}">{}</button></form>)",
                     html_escape(user.csrf), html_escape(p.id), html_escape(m.id), state, state,
                     state, label);
}

// Asks first: /page/sessions answers with a confirmation form (kill_confirm_page.h).
std::string kill_button(const model::PoolView& p, const model::MemberView& m,
                        const PageUser& user) {
  return fmt::format(R"(<form method="post" action="/page/sessions" class="act">)"
                     R"(<input type="hidden" name="csrf" value="{}">)"
                     R"(<input type="hidden" name="pool" value="{}">)"
                     R"(<input type="hidden" name="member" value="{}">)"
                     R"(<button type="submit" class="kill">Kill sessions</button></form>)",
                     html_escape(user.csrf), html_escape(p.id), html_escape(m.id));
}

std::string actions_cell(const model::PoolView& p, const model::MemberView& m,
                         const PageUser& user) {
  const model::AdminState state =
      m.admin_override ? m.admin_override->state : model::AdminState::kReady;
  std::string out = "<td class=\"actions\">";
  if (state != model::AdminState::kDrain) out += button(p, m, user, "drain", "Drain");
  if (state != model::AdminState::kMaint) out += button(p, m, user, "maint", "Maint");
  if (m.admin_override) out += button(p, m, user, "ready", "Ready");
  return out + kill_button(p, m, user) + "</td>";
}

std::string member_row(const model::PoolView& p, const model::MemberView& m, model::WallTime now,
                       const PageUser& user) {
  const model::HourView hour = model::last_hour(m.history ? *m.history : model::MemberHistory{},
                                                m.health_status, m.health_since, now);
  // The age of what its checks say: a drained master that went down a minute ago shows 1m, not
  // the drain's age (the override cell has that).
  const model::WallTime since_at = is_set(m.health_since) ? m.health_since : m.state_since;
  const std::string since = is_set(since_at) ? short_age(seconds_between(since_at, now)) : "-";
  std::string row = fmt::format(R"(<tr class="member" data-member="{}" data-status="{}">)",
                                html_escape(m.config.name), model::to_string(m.operating_status));
  row += cell(m.config.name) + cell(host_port(m.config.address, m.config.port));
  row += "<td>" + status_badge(m.operating_status) + "</td>";
  row += cell(m.in_rotation ? "yes" : "no");
  row += "<td class=\"why\">" + html_escape(reason_of(p, m)) + "</td>" + num(since);
  row += weight_cell(m) + num(duration_text(m));
  row += "<td>" + duration_sparkline(hour) + "</td><td>" + state_sparkline(hour) + "</td>";
  row += num(std::to_string(hour.transitions)) + num(downtime_text(hour.down_ms));
  row += override_cell(m, now);
  row += num(fmt::format("{} / {}", m.active_connections, m.total_connections));
  row += num(std::to_string(m.connect_failures));
  if (user.buttons()) row += actions_cell(p, m, user);
  return row + "</tr>\n";
}

}  // namespace

std::string members_table(const model::PoolView& pool, model::WallTime now, const PageUser& user) {
  std::string out =
      "<table class=\"members\"><tr><th>member</th><th>address</th><th>status</th>"
      "<th>rotation</th><th>last check</th><th>since</th><th>weight</th><th>check</th>"
      "<th>check time (1 h)</th><th>state (1 h)</th><th>flaps (1 h)</th><th>down (1 h)</th>"
      "<th>override</th><th>sessions / total</th><th>failed connects</th>";
  if (user.buttons()) out += "<th></th>";
  out += "</tr>\n";
  for (const model::MemberView& m : pool.members) out += member_row(pool, m, now, user);
  return out + "</table>\n";
}

}  // namespace vigil::admin
