#include "admin/status_json.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <chrono>

#include "admin/override_json.h"
#include "admin/text.h"
#include "model/config.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

int64_t millis(Duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

json::value monitor_json(const model::PoolView& p) {
  if (!p.config.health_monitor) return nullptr;
  const model::HealthMonitor& hm = *p.config.health_monitor;
  return json::object{
      {"id", p.health_monitor_id},
      {"type", model::to_string(hm.type)},
      {"path", hm.path},
      {"http_method", hm.http_method},
      {"expected_codes", hm.expected_codes.to_string()},
      {"interval_ms", millis(hm.interval)},
      {"fast_interval_ms", millis(hm.fast_interval)},
      {"timeout_ms", millis(hm.timeout)},
      {"healthy_threshold", hm.healthy_threshold},
      {"unhealthy_threshold", hm.unhealthy_threshold},
  };
}

// The member's last time out of service and what its clients saw; null before the first.
json::value disruption_json(const std::optional<model::Disruption>& d) {
  if (!d) return nullptr;
  return json::object{
      {"status", model::to_string(d->status)},
      {"at", time_json(d->at)},
      {"ongoing", d->ongoing},
      {"sessions_closed", d->counts.sessions_closed},
      {"retries", d->counts.retries},
      {"hedges", d->counts.hedges},
      {"replays", d->counts.replays},
      {"failed_sessions", d->counts.failed_sessions},
  };
}

}  // namespace

json::object member_json(const model::MemberView& m, model::WallTime now) {
  const model::Member& c = m.config;
  return json::object{
      {"id", m.id},
      {"pool_id", m.pool_id},
      {"name", c.name},
      {"address", c.address},
      {"protocol_port", c.port},
      {"weight", c.weight},
      {"backup", c.backup},
      {"admin_state_up", c.enabled},
      {"monitor_address",
       c.monitor_address.empty() ? json::value() : json::value(c.monitor_address)},
      {"monitor_port", c.monitor_port == 0 ? json::value() : json::value(c.monitor_port)},
      {"operating_status", model::to_string(m.operating_status)},
      {"provisioning_status", "ACTIVE"},
      {"health", health_name(m.health)},
      {"in_rotation", m.in_rotation},
      {"check", check_json(m)},
      {"state_since", time_json(m.state_since)},
      {"state_seconds", seconds_between(m.state_since, now)},
      {"consecutive_successes", m.consecutive_successes},
      {"consecutive_failures", m.consecutive_failures},
      {"active_connections", m.active_connections},
      {"total_connections", m.total_connections},
      {"connect_failures", m.connect_failures},
      {"admin_override", override_json(m.admin_override)},
      {"last_disruption", disruption_json(m.last_disruption)},
  };
}

namespace {

// Where the members come from, besides the file (members_from): "following" the API, "stale"
// (its last known members, while it cannot be read) or "bootstrap" (the file's, until it answers).
json::object members_source_json(const model::MembersSourceView& s) {
  json::object o{{"state", s.state},       {"server", s.server},
                 {"members", s.members},   {"resource_version", s.resource_version},
                 {"lists", s.lists},       {"expiries", s.expiries},
                 {"failures", s.failures}, {"changes", s.changes}};
  if (!s.last_error.empty()) o["error"] = s.last_error;
  if (s.state != "following" && s.unconfirmed_seconds > 0) {
    o["unconfirmed_seconds"] = s.unconfirmed_seconds;
  }
  return o;
}

json::object pool_json(const model::PoolView& p, model::WallTime now) {
  json::array listener_ids(p.listener_ids.begin(), p.listener_ids.end());
  json::array members;
  for (const model::MemberView& m : p.members) members.push_back(member_json(m, now));
  json::object out{
      {"id", p.id},
      {"name", p.config.name},
      {"algorithm", model::to_string(p.config.algorithm)},
      {"connect_timeout_ms", millis(p.config.connect_timeout)},
      {"retries", p.config.retries},
      {"fail_open", p.config.fail_open},
      {"fail_open_active", p.fail_open_active},
      {"listener_ids", std::move(listener_ids)},
      {"operating_status", model::to_string(p.operating_status)},
      {"provisioning_status", "ACTIVE"},
      {"health_monitor", monitor_json(p)},
      {"members", std::move(members)},
  };
  if (p.members_source) out["members_from"] = members_source_json(*p.members_source);
  return out;
}

// A co-located listener's redirect: null without redirect_from.
json::value redirect_json(const model::ListenerView& l) {
  if (!l.redirect) return nullptr;
  return json::object{{"from", l.redirect->from},
                      {"to_port", l.bound.substr(l.bound.rfind(':') + 1)},
                      {"active", l.redirect->active},
                      {"reason", l.redirect->reason}};
}

json::object listener_json(const model::ListenerView& l) {
  return json::object{
      {"id", l.id},
      {"name", l.config.name},
      {"bind_address", l.config.bind_address},
      {"protocol_port", l.config.port},
      {"bound", l.bound},
      {"bind_error", l.bind_error},
      {"default_pool_id", l.default_pool_id},
      {"pool", l.config.pool},
      {"max_connections", l.config.max_connections},
      {"idle_timeout_ms", millis(l.config.idle_timeout)},
      {"operating_status", model::to_string(l.operating_status)},
      {"provisioning_status", "ACTIVE"},
      {"active_connections", l.active_connections},
      {"total_connections", l.total_connections},
      // As Octavia's listener statistics count them: one read of /v1/status gives every
      // listener's, so a provider agent with many load balancers makes one request per poll.
      {"bytes_in", l.counters.bytes_in},
      {"bytes_out", l.counters.bytes_out},
      {"request_errors", l.counters.rejected + l.counters.no_backend},
      {"redirect", redirect_json(l)},
  };
}

}  // namespace

json::value time_json(model::WallTime t) {
  if (!is_set(t)) return nullptr;
  return json::value(iso8601_utc(t));
}

json::value check_json(const model::MemberView& m) {
  if (!m.last_check) return nullptr;
  const model::CheckResult& r = *m.last_check;
  return json::object{
      {"result", model::to_string(r.outcome)},
      {"http_code", r.http_code == 0 ? json::value() : json::value(r.http_code)},
      {"duration_ms", std::chrono::duration<double, std::milli>(r.duration).count()},
      {"detail", r.detail},
      {"failed_checks", json::array(r.failed_checks.begin(), r.failed_checks.end())},
      {"reused_connection", r.reused_connection},
      {"reason", model::describe(r)},
      {"at", time_json(m.last_check_at)},
  };
}

namespace {

// One load balancer: {"loadbalancer", "listeners", "pools", "recent_transitions"}.
json::object lb_json(const model::LoadBalancerView& lb, model::WallTime now) {
  json::array listeners;
  for (const model::ListenerView& l : lb.listeners) listeners.push_back(listener_json(l));
  json::array pools;
  for (const model::PoolView& p : lb.pools) pools.push_back(pool_json(p, now));
  json::array transitions;
  for (const model::Transition& t : lb.recent_transitions) {
    transitions.push_back(json::object{
        {"at", time_json(t.at)}, {"pool", t.pool}, {"member", t.member}, {"message", t.message}});
  }
  json::array peers;
  for (const model::PeerStatus& p : lb.peers) {
    peers.push_back(json::object{
        {"name", p.name},
        {"address", p.address},
        {"sending", p.sending},
        {"receiving", p.receiving},
        {"sessions_known", p.sessions_known},
        {"synced", p.synced},
        {"heard_ms_ago",
         p.receiving
             ? json::value(
                   std::chrono::duration_cast<std::chrono::milliseconds>(p.since_heard).count())
             : json::value(nullptr)},
        {"lost", p.lost},
        {"refused", p.refused},
        {"sessions_tickled", p.sessions_tickled}});
  }
  json::object doc{
      {"loadbalancer",
       json::object{
           {"id", lb.id},
           {"name", lb.name},
           {"operating_status", model::to_string(lb.operating_status)},
           {"provisioning_status", "ACTIVE"},
           {"source_file", lb.source_file},
           {"vip_address", lb.vip_address},
           {"started_at", time_json(lb.started_at)},
       }},
      {"listeners", std::move(listeners)},
      {"pools", std::move(pools)},
      {"recent_transitions", std::move(transitions)},
  };
  // Only where `peers:` is set (the file's load balancer): the other nodes and their streams.
  if (!lb.peers.empty()) doc["peers"] = std::move(peers);
  return doc;
}

}  // namespace

std::string status_json(const std::vector<model::LoadBalancerView>& lbs, model::WallTime now) {
  json::array all;
  for (const model::LoadBalancerView& lb : lbs) all.push_back(lb_json(lb, now));
  // The first load balancer's fields stay at the top, where clients of one load balancer read.
  json::object out = lbs.empty() ? json::object{{"loadbalancer", nullptr},
                                                {"listeners", json::array()},
                                                {"pools", json::array()},
                                                {"recent_transitions", json::array()}}
                                 : all.front().as_object();
  out["generated_at"] = iso8601_utc(now);
  out["loadbalancers"] = std::move(all);
  return json::serialize(out);
}

std::string status_json(const model::LoadBalancerView& lb, model::WallTime now) {
  return status_json(std::vector<model::LoadBalancerView>{lb}, now);
}

}  // namespace vigil::admin
