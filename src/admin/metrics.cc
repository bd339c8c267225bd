#include "admin/metrics.h"

#include <fmt/format.h>

#include <chrono>
#include <functional>

#include "admin/text.h"

namespace vigil::admin {
namespace {

class Writer {
 public:
  void family(std::string_view name, std::string_view type, std::string_view help) {
    out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  void sample(std::string_view name, const std::string& labels, double value) {
    out_ += fmt::format("{}{{{}}} {}\n", name, labels, value);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

std::string label(std::string_view key, std::string_view value) {
  return fmt::format("{}=\"{}\"", key, escape_label_value(value));
}

using Lbs = std::vector<model::LoadBalancerView>;

// Objects created through the API may have no name: their id labels them then.
std::string_view name_or_id(const std::string& name, const std::string& id) {
  return name.empty() ? id : name;
}

// Names label the series for people; the object's id ends each label set because names need not
// be unique (two API pools may share one), and Prometheus rejects a whole scrape that carries
// the same series twice.
std::string member_labels(const model::LoadBalancerView& lb, const model::PoolView& p,
                          const model::MemberView& m) {
  return label("lb", name_or_id(lb.name, lb.id)) + "," +
         label("pool", name_or_id(p.config.name, p.id)) + "," +
         label("member", name_or_id(m.config.name, m.id)) + "," +
         label("address", host_port(m.config.address, m.config.port)) + "," +
         label("member_id", m.id);
}

// One family, one sample per member; `value` returns nullopt to skip a member.
void member_family(Writer& w, const Lbs& lbs, std::string_view name, std::string_view type,
                   std::string_view help,
                   const std::function<std::optional<double>(const model::MemberView&)>& value) {
  w.family(name, type, help);
  for (const model::LoadBalancerView& lb : lbs) {
    for (const model::PoolView& p : lb.pools) {
      for (const model::MemberView& m : p.members) {
        if (auto v = value(m)) w.sample(name, member_labels(lb, p, m), *v);
      }
    }
  }
}

void member_metrics(Writer& w, const Lbs& lbs) {
  using M = model::MemberView;
  member_family(w, lbs, "vigil_member_up", "gauge",
                "1 when the member is in rotation (receives new connections).",
                [](const M& m) { return m.in_rotation ? 1.0 : 0.0; });
  // Every status gets a sample (0 or 1) so that a series never vanishes when a member changes.
  w.family("vigil_member_operating_status", "gauge",
           "Octavia operating status of the member: 1 for the current status, else 0.");
  for (const model::LoadBalancerView& lb : lbs) {
    for (const model::PoolView& p : lb.pools) {
      for (const model::MemberView& m : p.members) {
        for (const auto& [status, name] : model::kOperatingStatusNames) {
          w.sample("vigil_member_operating_status",
                   member_labels(lb, p, m) + "," + label("status", name),
                   m.operating_status == status ? 1 : 0);
        }
      }
    }
  }
  member_family(w, lbs, "vigil_member_active_connections", "gauge",
                "Client sessions open to the member now.",
                [](const M& m) { return static_cast<double>(m.active_connections); });
  member_family(w, lbs, "vigil_member_connections_total", "counter",
                "Client sessions sent to the member.",
                [](const M& m) { return static_cast<double>(m.total_connections); });
  member_family(w, lbs, "vigil_member_connect_failures_total", "counter",
                "Connects from the data plane to the member that failed (passive health).",
                [](const M& m) { return static_cast<double>(m.connect_failures); });
  member_family(w, lbs, "vigil_check_local_failures_total", "counter",
                "Health checks of the member that vigil could not make for want of a local "
                "resource (file descriptors, buffers, memory); they do not count against it.",
                [](const M& m) { return static_cast<double>(m.check_local_failures); });
  member_family(w, lbs, "vigil_member_check_duration_seconds", "gauge",
                "Duration of the member's last health check.", [](const M& m) {
                  std::optional<double> v;
                  if (m.last_check) {
                    v = std::chrono::duration<double>(m.last_check->duration).count();
                  }
                  return v;
                });
  member_family(w, lbs, "vigil_member_consecutive_failures", "gauge",
                "Health checks of the member that failed in a row.",
                [](const M& m) { return static_cast<double>(m.consecutive_failures); });
}

void listener_and_pool_metrics(Writer& w, const Lbs& lbs) {
  auto listener_labels = [](const model::LoadBalancerView& lb, const model::ListenerView& l) {
    return label("lb", name_or_id(lb.name, lb.id)) + "," +
           label("listener", name_or_id(l.config.name, l.id)) + "," + label("listener_id", l.id);
  };
  auto pool_labels = [](const model::LoadBalancerView& lb, const model::PoolView& p) {
    return label("lb", name_or_id(lb.name, lb.id)) + "," +
           label("pool", name_or_id(p.config.name, p.id)) + "," + label("pool_id", p.id);
  };
  auto each_listener = [&](auto f) {
    for (const model::LoadBalancerView& lb : lbs) {
      for (const model::ListenerView& l : lb.listeners) f(lb, l);
    }
  };
  auto each_pool = [&](auto f) {
    for (const model::LoadBalancerView& lb : lbs) {
      for (const model::PoolView& p : lb.pools) f(lb, p);
    }
  };
  w.family("vigil_listener_active_connections", "gauge", "Client sessions open on the listener.");
  each_listener([&](const auto& lb, const auto& l) {
    w.sample("vigil_listener_active_connections", listener_labels(lb, l),
             static_cast<double>(l.active_connections));
  });
  w.family("vigil_listener_connections_total", "counter", "Client sessions accepted.");
  each_listener([&](const auto& lb, const auto& l) {
    w.sample("vigil_listener_connections_total", listener_labels(lb, l),
             static_cast<double>(l.total_connections));
  });
  w.family("vigil_pool_members_in_rotation", "gauge", "Members receiving new connections.");
  each_pool([&](const auto& lb, const auto& p) {
    int n = 0;
    for (const model::MemberView& m : p.members) n += m.in_rotation ? 1 : 0;
    w.sample("vigil_pool_members_in_rotation", pool_labels(lb, p), n);
  });
  w.family("vigil_pool_fail_open", "gauge",
           "1 when no member is usable and the pool routes to all of them.");
  each_pool([&](const auto& lb, const auto& p) {
    w.sample("vigil_pool_fail_open", pool_labels(lb, p), p.fail_open_active ? 1 : 0);
  });
}

}  // namespace

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string metrics_text(const std::vector<model::LoadBalancerView>& lbs) {
  Writer w;
  member_metrics(w, lbs);
  listener_and_pool_metrics(w, lbs);
  return w.take();
}

std::string metrics_text(const model::LoadBalancerView& lb) {
  return metrics_text(std::vector<model::LoadBalancerView>{lb});
}

}  // namespace vigil::admin
