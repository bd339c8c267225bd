#include "daemon/event_log.h"

#include <boost/json/object.hpp>

#include "base/log_event.h"
#include "daemon/disruption.h"
#include "daemon/transition_log.h"

namespace vigil::daemon {
namespace {

void put_counts(boost::json::object& o, const model::DisruptionCounts& c) {
  o["sessions_closed"] = c.sessions_closed;
  o["retries"] = c.retries;
  o["hedges"] = c.hedges;
  o["replays"] = c.replays;
  o["failed_sessions"] = c.failed_sessions;
}

std::string address_of(const MemberRuntime& m) {
  return m.address ? m.address->to_string() : m.config.address;
}

}  // namespace

void set_log_format(model::LogFormat format) {
  log::set_format(format == model::LogFormat::kJson ? log::Format::kJson : log::Format::kText);
}

void log_transition(const PoolRuntime& pool, const MemberRuntime& m, const MemberTransition& t) {
  boost::json::object o{{"pool", pool.config.name},
                        {"member", m.config.name},
                        {"address", address_of(m)},
                        {"from", model::to_string(t.before)},
                        {"to", model::to_string(t.after)}};
  if (m.last_check) o["reason"] = model::describe(*m.last_check);
  if (m.admin_override) o["admin"] = model::describe(*m.admin_override);
  if (!in_service(t.after)) put_counts(o, disruption_counts(m));
  const log::Level level =
      t.after == model::OperatingStatus::kError ? log::Level::kWarn : log::Level::kInfo;
  log::event(level, "member_transition", t.line, o);
}

void log_hidden_health(const PoolRuntime& pool, const MemberRuntime& m,
                       const HiddenHealthChange& h) {
  boost::json::object o{{"pool", pool.config.name},
                        {"member", m.config.name},
                        {"address", address_of(m)},
                        {"health", h.health == model::Health::kUp ? "up" : "down"},
                        {"status", model::to_string(h.keeps)},
                        {"hidden_by", h.hidden_by}};
  if (m.last_check) o["reason"] = model::describe(*m.last_check);
  const log::Level level = h.health == model::Health::kDown ? log::Level::kWarn : log::Level::kInfo;
  log::event(level, "member_health", h.line, o);
}

void log_disruption(std::string_view pool, std::string_view member, std::string_view address,
                    model::OperatingStatus status, const model::DisruptionCounts& counts,
                    bool silent) {
  boost::json::object o{{"pool", pool},
                        {"member", member},
                        {"address", address},
                        {"status", model::to_string(status)},
                        {"silent", silent}};
  put_counts(o, counts);
  log::event(log::Level::kInfo, "member_disruption",
             disruption_line(pool, member, address, status, counts, silent), o);
}

void ConnectionLogWriter::learn(const std::vector<const PoolRuntime*>& pools) {
  // Members removed since stay known for the sessions that outlive them, within a bound.
  constexpr size_t kMaxKnown = 100'000;
  if (members_.size() > kMaxKnown) members_.clear();
  for (const PoolRuntime* p : pools) {
    for (const MemberRuntime& m : p->members) {
      members_[m.stats->serial] = {
          .pool = p->config.name, .member = m.config.name, .address = address_of(m)};
    }
  }
}

void ConnectionLogWriter::write(std::span<const proxy::ConnectionRecord> records,
                                TimePoint steady_now,
                                std::chrono::system_clock::time_point wall_now) const {
  const bool json = log::format() == log::Format::kJson;
  for (const proxy::ConnectionRecord& r : records) {
    const auto it = members_.find(r.member_serial);
    const auto accepted_at =
        wall_now -
        std::chrono::duration_cast<std::chrono::system_clock::duration>(steady_now - r.accepted);
    proxy::ConnectionLine line =
        proxy::connection_line(r, it == members_.end() ? nullptr : &it->second, accepted_at, json);
    log::event(log::Level::kInfo, "connection", line.text, line.fields);
  }
}

}  // namespace vigil::daemon
