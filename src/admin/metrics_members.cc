// The per-member families of /metrics: status, the operator's overrides, traffic, and the health
// checks' results, durations and transitions.
#include <algorithm>
#include <chrono>

#include "admin/metrics_writer.h"
#include "admin/text.h"

namespace vigil::admin::metrics {
namespace {

using M = model::MemberView;

template <auto Field>
void value_of(Writer& w, std::string_view name, const M& m, const std::string& l, model::WallTime) {
  w.sample(name, l, "", m.*Field);
}

void up(Writer& w, std::string_view name, const M& m, const std::string& l, model::WallTime) {
  w.sample(name, l, "", uint64_t{m.in_rotation});
}

void status(Writer& w, std::string_view name, const M& m, const std::string& l, model::WallTime) {
  status_samples(w, name, l, m.operating_status);
}

// A member's time starts when it is added; a view built by hand may lack it: no sample then,
// rather than an age of 56 years.
void last_change(Writer& w, std::string_view name, const M& m, const std::string& l,
                 model::WallTime) {
  if (is_set(m.state_since)) w.sample(name, l, "", seconds(m.state_since));
}

void last_change_age(Writer& w, std::string_view name, const M& m, const std::string& l,
                     model::WallTime now) {
  if (is_set(m.state_since)) {
    w.sample(name, l, "", std::max(0.0, seconds(now) - seconds(m.state_since)));
  }
}

// What operators set (drain, maint, a weight) and since when, the weight in use, and since when a
// member is out of service: "a master left in maint for three hours" is an alert of these.
void admin_state(Writer& w, std::string_view name, const M& m, const std::string& l,
                 model::WallTime) {
  static const std::vector<std::string> kStates = [] {
    std::vector<std::string> out;
    for (const auto& [state, state_name] : model::kAdminStateNames) {
      out.push_back(fmt::format(",state=\"{}\"", state_name));
    }
    return out;
  }();
  const model::AdminState now =
      m.admin_override ? m.admin_override->state : model::AdminState::kReady;
  for (size_t i = 0; i < kStates.size(); ++i) {
    w.sample(name, l, kStates[i], uint64_t{model::kAdminStateNames[i].value == now});
  }
}

void override_set_at(Writer& w, std::string_view name, const M& m, const std::string& l,
                     model::WallTime) {
  if (m.admin_override && is_set(m.admin_override->set_at)) {
    w.sample(name, l, "", seconds(m.admin_override->set_at));
  }
}

void weight(Writer& w, std::string_view name, const M& m, const std::string& l, model::WallTime) {
  const int in_use =
      m.admin_override && m.admin_override->weight ? *m.admin_override->weight : m.config.weight;
  w.sample(name, l, "", static_cast<uint64_t>(std::max(0, in_use)));
}

void out_of_service(Writer& w, std::string_view name, const M& m, const std::string& l,
                    model::WallTime) {
  if (m.last_disruption && m.last_disruption->ongoing && is_set(m.last_disruption->at)) {
    w.sample(name, l, "", seconds(m.last_disruption->at));
  }
}

// `,result="timeout"` for each Outcome, in the order of kOutcomeNames; formatted once.
const std::string& result_label(model::Outcome o) {
  static const std::vector<std::string> kLabels = [] {
    std::vector<std::string> out;
    for (const auto& [outcome, name] : model::kOutcomeNames) {
      out.push_back(fmt::format(",result=\"{}\"", name));
    }
    return out;
  }();
  for (size_t i = 0; i < kLabels.size(); ++i) {
    if (model::kOutcomeNames[i].value == o) return kLabels[i];
  }
  return kLabels.back();  // unreachable: every Outcome has a name
}

// One series per member: a result that changes moves the 1 to a new series, and the old one
// goes stale, as kube-state-metrics does for pod phases.
void check_result(Writer& w, std::string_view name, const M& m, const std::string& l,
                  model::WallTime) {
  if (m.last_check) w.sample(name, l, result_label(m.last_check->outcome), uint64_t{1});
}

void http_code(Writer& w, std::string_view name, const M& m, const std::string& l,
               model::WallTime) {
  if (m.last_check && m.last_check->http_code != 0) {
    w.sample(name, l, "", static_cast<uint64_t>(m.last_check->http_code));
  }
}

void consecutive_failures(Writer& w, std::string_view name, const M& m, const std::string& l,
                          model::WallTime) {
  w.sample(name, l, "", static_cast<uint64_t>(m.consecutive_failures));
}

template <auto Field>
void check_count(Writer& w, std::string_view name, const M& m, const std::string& l,
                 model::WallTime) {
  w.sample(name, l, "", m.checks.*Field);
}

// The bucket bounds as label suffixes, formatted once.
std::vector<std::string> bucket_labels() {
  std::vector<std::string> out;
  for (double b : model::kCheckDurationBuckets) out.push_back(fmt::format(",le=\"{}\"", b));
  out.emplace_back(",le=\"+Inf\"");
  return out;
}

void check_durations(Writer& w, std::string_view, const M& m, const std::string& l,
                     model::WallTime) {
  static const std::vector<std::string> kLe = bucket_labels();
  uint64_t cumulative = 0;
  for (size_t i = 0; i < kLe.size(); ++i) {
    cumulative += m.checks.duration_buckets[i];
    w.sample("vigil_member_check_duration_seconds_bucket", l, kLe[i], cumulative);
  }
  w.sample("vigil_member_check_duration_seconds_sum", l, "", m.checks.duration_sum_seconds);
  w.sample("vigil_member_check_duration_seconds_count", l, "", m.checks.checks);
}

constexpr Family<M> kFamilies[] = {
    {"vigil_member_up", "gauge", "1 when the member is in rotation (receives new connections).",
     &up},
    {"vigil_member_status", "gauge",
     "Octavia operating status of the member: 1 for the current status, else 0.", &status},
    {"vigil_member_transitions_total", "counter",
     "Changes of the member's operating status (flapping shows as a high rate).",
     &check_count<&model::CheckStats::transitions>},
    {"vigil_member_last_change_timestamp_seconds", "gauge",
     "When the member's operating status last changed, in unix seconds.", &last_change},
    {"vigil_member_last_change_seconds", "gauge",
     "Seconds since the member's operating status last changed.", &last_change_age},
    {"vigil_member_admin_state", "gauge",
     "The operator's state for the member (ready, drain, maint): 1 for the current one.",
     &admin_state},
    {"vigil_member_admin_override_timestamp_seconds", "gauge",
     "When the operator's override (drain, maint or weight) was set, in unix seconds; absent "
     "without one.",
     &override_set_at},
    {"vigil_member_weight", "gauge",
     "The weight in use: the operator's override, else the configured one.", &weight},
    {"vigil_member_out_of_service_timestamp_seconds", "gauge",
     "When the member last left service (marked down, drained, maint), in unix seconds; absent "
     "while it is in service.",
     &out_of_service},
    {"vigil_member_active_connections", "gauge", "Client sessions open to the member now.",
     &value_of<&M::active_connections>},
    {"vigil_member_connections_total", "counter", "Client sessions sent to the member.",
     &value_of<&M::total_connections>},
    {"vigil_member_connect_failures_total", "counter",
     "Connects from the data plane to the member that failed (passive health).",
     &value_of<&M::connect_failures>},
    {"vigil_member_received_bytes_total", "counter",
     "Bytes received from the member (its answers to clients).", &value_of<&M::bytes_in>},
    {"vigil_member_sent_bytes_total", "counter",
     "Bytes sent to the member (its clients' requests).", &value_of<&M::bytes_out>},
    {"vigil_member_check_result", "gauge",
     "The result of the member's last health check, as a label; absent before the first.",
     &check_result},
    {"vigil_member_check_http_code", "gauge",
     "The HTTP status code of the member's last health check; absent without one.", &http_code},
    {"vigil_member_consecutive_failures", "gauge",
     "Health checks of the member that failed in a row.", &consecutive_failures},
    {"vigil_member_check_failures_total", "counter",
     "Health checks of the member that did not succeed.",
     &check_count<&model::CheckStats::failures>},
    {"vigil_check_local_failures_total", "counter",
     "Health checks of the member that vigil could not make for want of a local resource (file "
     "descriptors, buffers, memory); they do not count against it.",
     &check_count<&model::CheckStats::local_failures>},
    {kMemberHistogram, "histogram", "Duration of the member's health checks.", &check_durations},
};

}  // namespace

std::span<const Family<M>> member_families() { return kFamilies; }

std::string member_labels(const model::LoadBalancerView& lb, const model::PoolView& p, const M& m) {
  // Names label the series for people; the member's id ends the set because names need not be
  // unique (two API pools may share one), and Prometheus rejects a whole scrape that carries the
  // same series twice.
  std::string s;
  append_label(s, "", "lb", name_or_id(lb.name, lb.id));
  append_label(s, ",", "pool", name_or_id(p.config.name, p.id));
  append_label(s, ",", "member", name_or_id(m.config.name, m.id));
  append_label(s, ",", "address", host_port(m.config.address, m.config.port));
  append_label(s, ",", "member_id", m.id);
  return s;
}

}  // namespace vigil::admin::metrics
