// The per-member families of /metrics: traffic, status, and the health checks' results, durations
// and transitions.
#include <algorithm>
#include <chrono>

#include "admin/metrics_writer.h"
#include "admin/text.h"

namespace vigil::admin::metrics {
namespace {

// Calls f(member, its label set) for every member, in member_label_sets() order.
template <class F>
void each_member(const Lbs& lbs, const std::vector<std::string>& labels, F f) {
  size_t i = 0;
  for (const model::LoadBalancerView& lb : lbs) {
    for (const model::PoolView& p : lb.pools) {
      for (const model::MemberView& m : p.members) f(m, labels[i++]);
    }
  }
}

double seconds(model::WallTime t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

void traffic(Writer& w, const Lbs& lbs, const std::vector<std::string>& labels) {
  struct Counter {
    std::string_view name, type, help;
    uint64_t model::MemberView::*field;
  };
  static constexpr Counter kCounters[] = {
      {"vigil_member_active_connections", "gauge", "Client sessions open to the member now.",
       &model::MemberView::active_connections},
      {"vigil_member_connections_total", "counter", "Client sessions sent to the member.",
       &model::MemberView::total_connections},
      {"vigil_member_connect_failures_total", "counter",
       "Connects from the data plane to the member that failed (passive health).",
       &model::MemberView::connect_failures},
      {"vigil_member_received_bytes_total", "counter",
       "Bytes received from the member (its answers to clients).", &model::MemberView::bytes_in},
      {"vigil_member_sent_bytes_total", "counter",
       "Bytes sent to the member (its clients' requests).", &model::MemberView::bytes_out},
  };
  for (const Counter& c : kCounters) {
    w.family(c.name, c.type, c.help);
    each_member(lbs, labels, [&](const model::MemberView& m, const std::string& l) {
      w.sample(c.name, l, "", m.*c.field);
    });
  }
}

void status(Writer& w, const Lbs& lbs, const std::vector<std::string>& labels,
            model::WallTime now) {
  w.family("vigil_member_up", "gauge",
           "1 when the member is in rotation (receives new connections).");
  each_member(lbs, labels, [&](const model::MemberView& m, const std::string& l) {
    w.sample("vigil_member_up", l, "", uint64_t{m.in_rotation});
  });
  // Every status gets a sample (0 or 1) so that a series never vanishes when a member changes.
  w.family("vigil_member_status", "gauge",
           "Octavia operating status of the member: 1 for the current status, else 0.");
  each_member(lbs, labels, [&](const model::MemberView& m, const std::string& l) {
    const auto& suffixes = status_labels();
    for (size_t i = 0; i < suffixes.size(); ++i) {
      w.sample("vigil_member_status", l, suffixes[i],
               uint64_t{m.operating_status == model::kOperatingStatusNames[i].value});
    }
  });
  w.family("vigil_member_transitions_total", "counter",
           "Changes of the member's operating status (flapping shows as a high rate).");
  each_member(lbs, labels, [&](const model::MemberView& m, const std::string& l) {
    w.sample("vigil_member_transitions_total", l, "", m.checks.transitions);
  });
  // A member's time starts when it is added; a view built by hand may lack it: no sample then,
  // rather than an age of 56 years.
  w.family("vigil_member_last_change_timestamp_seconds", "gauge",
           "When the member's operating status last changed, in unix seconds.");
  each_member(lbs, labels, [&](const model::MemberView& m, const std::string& l) {
    if (is_set(m.state_since)) {
      w.sample("vigil_member_last_change_timestamp_seconds", l, "", seconds(m.state_since));
    }
  });
  w.family("vigil_member_last_change_seconds", "gauge",
           "Seconds since the member's operating status last changed.");
  each_member(lbs, labels, [&](const model::MemberView& m, const std::string& l) {
    if (is_set(m.state_since)) {
      w.sample("vigil_member_last_change_seconds", l, "",
               std::max(0.0, seconds(now) - seconds(m.state_since)));
    }
  });
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

void check_results(Writer& w, const Lbs& lbs, const std::vector<std::string>& labels) {
  // One series per member: a result that changes moves the 1 to a new series, and the old one
  // goes stale, as kube-state-metrics does for pod phases.
  w.family("vigil_member_check_result", "gauge",
           "The result of the member's last health check, as a label; absent before the first.");
  each_member(lbs, labels, [&](const model::MemberView& m, const std::string& l) {
    if (m.last_check) {
      w.sample("vigil_member_check_result", l, result_label(m.last_check->outcome), uint64_t{1});
    }
  });
  w.family("vigil_member_check_http_code", "gauge",
           "The HTTP status code of the member's last health check; absent without one.");
  each_member(lbs, labels, [&](const model::MemberView& m, const std::string& l) {
    if (m.last_check && m.last_check->http_code != 0) {
      w.sample("vigil_member_check_http_code", l, "",
               static_cast<uint64_t>(m.last_check->http_code));
    }
  });
  w.family("vigil_member_consecutive_failures", "gauge",
           "Health checks of the member that failed in a row.");
  each_member(lbs, labels, [&](const model::MemberView& m, const std::string& l) {
    w.sample("vigil_member_consecutive_failures", l, "",
             static_cast<uint64_t>(m.consecutive_failures));
  });
  w.family("vigil_member_check_failures_total", "counter",
           "Health checks of the member that did not succeed.");
  each_member(lbs, labels, [&](const model::MemberView& m, const std::string& l) {
    w.sample("vigil_member_check_failures_total", l, "", m.checks.failures);
  });
  w.family("vigil_check_local_failures_total", "counter",
           "Health checks of the member that vigil could not make for want of a local resource "
           "(file descriptors, buffers, memory); they do not count against it.");
  each_member(lbs, labels, [&](const model::MemberView& m, const std::string& l) {
    w.sample("vigil_check_local_failures_total", l, "", m.checks.local_failures);
  });
}

// The bucket bounds as label suffixes, formatted once.
std::vector<std::string> bucket_labels() {
  std::vector<std::string> out;
  for (double b : model::kCheckDurationBuckets) out.push_back(fmt::format(",le=\"{}\"", b));
  out.emplace_back(",le=\"+Inf\"");
  return out;
}

void check_durations(Writer& w, const Lbs& lbs, const std::vector<std::string>& labels) {
  static const std::vector<std::string> kLe = bucket_labels();
  constexpr std::string_view kName = "vigil_member_check_duration_seconds";
  w.family(kName, "histogram", "Duration of the member's health checks.");
  each_member(lbs, labels, [&](const model::MemberView& m, const std::string& l) {
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kLe.size(); ++i) {
      cumulative += m.checks.duration_buckets[i];
      w.sample("vigil_member_check_duration_seconds_bucket", l, kLe[i], cumulative);
    }
    w.sample("vigil_member_check_duration_seconds_sum", l, "", m.checks.duration_sum_seconds);
    w.sample("vigil_member_check_duration_seconds_count", l, "", m.checks.checks);
  });
}

}  // namespace

std::vector<std::string> member_label_sets(const Lbs& lbs) {
  std::vector<std::string> out;
  for (const model::LoadBalancerView& lb : lbs) {
    for (const model::PoolView& p : lb.pools) {
      for (const model::MemberView& m : p.members) {
        // Names label the series for people; the member's id ends the set because names need
        // not be unique (two API pools may share one), and Prometheus rejects a whole scrape
        // that carries the same series twice.
        std::string& s = out.emplace_back();
        append_label(s, "", "lb", name_or_id(lb.name, lb.id));
        append_label(s, ",", "pool", name_or_id(p.config.name, p.id));
        append_label(s, ",", "member", name_or_id(m.config.name, m.id));
        append_label(s, ",", "address", host_port(m.config.address, m.config.port));
        append_label(s, ",", "member_id", m.id);
      }
    }
  }
  return out;
}

// What operators set (drain, maint, a weight) and since when, the weight in use, and since when a
// member is out of service: "a master left in maint for three hours" is an alert of these.
void overrides(Writer& w, const Lbs& lbs, const std::vector<std::string>& labels) {
  static const std::vector<std::string> kStates = [] {
    std::vector<std::string> out;
    for (const auto& [state, name] : model::kAdminStateNames) {
      out.push_back(fmt::format(",state=\"{}\"", name));
    }
    return out;
  }();
  w.family("vigil_member_admin_state", "gauge",
           "The operator's state for the member (ready, drain, maint): 1 for the current one.");
  each_member(lbs, labels, [&](const model::MemberView& m, const std::string& l) {
    const model::AdminState now =
        m.admin_override ? m.admin_override->state : model::AdminState::kReady;
    for (size_t i = 0; i < kStates.size(); ++i) {
      w.sample("vigil_member_admin_state", l, kStates[i],
               uint64_t{model::kAdminStateNames[i].value == now});
    }
  });
  w.family("vigil_member_admin_override_timestamp_seconds", "gauge",
           "When the operator's override (drain, maint or weight) was set, in unix seconds; "
           "absent without one.");
  each_member(lbs, labels, [&](const model::MemberView& m, const std::string& l) {
    if (m.admin_override && is_set(m.admin_override->set_at)) {
      w.sample("vigil_member_admin_override_timestamp_seconds", l, "",
               seconds(m.admin_override->set_at));
    }
  });
  w.family("vigil_member_weight", "gauge",
           "The weight in use: the operator's override, else the configured one.");
  each_member(lbs, labels, [&](const model::MemberView& m, const std::string& l) {
    const int weight =
        m.admin_override && m.admin_override->weight ? *m.admin_override->weight : m.config.weight;
    w.sample("vigil_member_weight", l, "", static_cast<uint64_t>(std::max(0, weight)));
  });
  w.family("vigil_member_out_of_service_timestamp_seconds", "gauge",
           "When the member last left service (marked down, drained, maint), in unix seconds; "
           "absent while it is in service.");
  each_member(lbs, labels, [&](const model::MemberView& m, const std::string& l) {
    if (m.last_disruption && m.last_disruption->ongoing && is_set(m.last_disruption->at)) {
      w.sample("vigil_member_out_of_service_timestamp_seconds", l, "",
               seconds(m.last_disruption->at));
    }
  });
}

void member_families(Writer& w, const Lbs& lbs, const std::vector<std::string>& labels,
                     model::WallTime now) {
  status(w, lbs, labels, now);
  overrides(w, lbs, labels);
  traffic(w, lbs, labels);
  disruption_families(w, lbs, labels);
  check_results(w, lbs, labels);
  check_durations(w, lbs, labels);
}

}  // namespace vigil::admin::metrics
