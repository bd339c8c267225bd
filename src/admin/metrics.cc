#include "admin/metrics.h"

#include <chrono>

#include "admin/metrics_writer.h"

namespace vigil::admin {
namespace metrics {
namespace {

std::string listener_labels(const model::LoadBalancerView& lb, const model::ListenerView& l) {
  std::string s;
  append_label(s, "", "lb", name_or_id(lb.name, lb.id));
  append_label(s, ",", "listener", name_or_id(l.config.name, l.id));
  append_label(s, ",", "listener_id", l.id);
  return s;
}

std::string pool_labels(const model::LoadBalancerView& lb, const model::PoolView& p) {
  std::string s;
  append_label(s, "", "lb", name_or_id(lb.name, lb.id));
  append_label(s, ",", "pool", name_or_id(p.config.name, p.id));
  append_label(s, ",", "pool_id", p.id);
  return s;
}

void status_samples(Writer& w, std::string_view name, const std::string& labels,
                    model::OperatingStatus current) {
  const auto& suffixes = status_labels();
  for (size_t i = 0; i < suffixes.size(); ++i) {
    w.sample(name, labels, suffixes[i], uint64_t{current == model::kOperatingStatusNames[i].value});
  }
}

void listener_families(Writer& w, const Lbs& lbs) {
  struct Counter {
    std::string_view name, type, help;
    uint64_t (*value)(const model::ListenerView&);
  };
  using L = model::ListenerView;
  static constexpr Counter kCounters[] = {
      {"vigil_listener_active_connections", "gauge", "Client sessions open on the listener.",
       [](const L& l) { return l.active_connections; }},
      {"vigil_listener_connections_total", "counter", "Client sessions accepted.",
       [](const L& l) { return l.total_connections; }},
      {"vigil_listener_received_bytes_total", "counter", "Bytes received from clients.",
       [](const L& l) { return l.counters.bytes_in; }},
      {"vigil_listener_sent_bytes_total", "counter", "Bytes sent to clients.",
       [](const L& l) { return l.counters.bytes_out; }},
      {"vigil_listener_rejected_connections_total", "counter",
       "Client connections closed at once because the listener had max_connections open.",
       [](const L& l) { return l.counters.rejected; }},
      {"vigil_listener_no_backend_connections_total", "counter",
       "Client connections closed because no member could be reached.",
       [](const L& l) { return l.counters.no_backend; }},
      {"vigil_listener_connect_failures_total", "counter",
       "Connects from this listener's sessions to members that failed (or whose first byte did "
       "not come).",
       [](const L& l) { return l.counters.connect_failures; }},
      {"vigil_listener_connect_retries_total", "counter",
       "Connects to another member after one failed (replays included).",
       [](const L& l) { return l.counters.retried; }},
      {"vigil_listener_connect_hedges_total", "counter",
       "Second connects started to another member because the first was slow (hedge_after).",
       [](const L& l) { return l.counters.hedged; }},
      {"vigil_listener_bind_errors_total", "counter",
       "Attempts to bind the listener's port that failed (taken at start-up; retried).",
       [](const L& l) { return l.bind_errors; }},
      {"vigil_listener_replays_total", "counter",
       "Client first flights sent again to another member that failed before its first byte.",
       [](const L& l) { return l.counters.replayed; }},
  };
  std::vector<std::string> labels;
  for (const model::LoadBalancerView& lb : lbs) {
    for (const model::ListenerView& l : lb.listeners) labels.push_back(listener_labels(lb, l));
  }
  auto each = [&](auto f) {
    size_t i = 0;
    for (const model::LoadBalancerView& lb : lbs) {
      for (const model::ListenerView& l : lb.listeners) f(l, labels[i++]);
    }
  };
  for (const Counter& c : kCounters) {
    w.family(c.name, c.type, c.help);
    each([&](const L& l, const std::string& s) { w.sample(c.name, s, "", c.value(l)); });
  }
  // Only listeners with accept_proxy have these; the reasons are a fixed set.
  constexpr std::string_view kRefused = "vigil_listener_proxy_refused_total";
  w.family(kRefused, "counter",
           "Client connections closed by accept_proxy: reason untrusted (not from "
           "trusted_sources), invalid (malformed header) or timeout (no complete header within "
           "proxy_header_timeout).");
  each([&](const L& l, const std::string& s) {
    if (!l.config.accept_proxy) return;
    w.sample(kRefused, s, ",reason=\"untrusted\"", l.counters.proxy_untrusted);
    w.sample(kRefused, s, ",reason=\"invalid\"", l.counters.proxy_invalid);
    w.sample(kRefused, s, ",reason=\"timeout\"", l.counters.proxy_timeout);
  });
  // Only listeners with allowed_cidrs have it.
  constexpr std::string_view kDenied = "vigil_listener_connections_refused_total";
  w.family(kDenied, "counter",
           "Client connections closed at accept, before any byte went to a member: reason "
           "allowed_cidrs (the client's address is outside the listener's allowed_cidrs).");
  each([&](const L& l, const std::string& s) {
    if (l.config.allowed_cidrs.empty()) return;
    w.sample(kDenied, s, ",reason=\"allowed_cidrs\"", l.counters.refused_cidr);
  });
  // Only listeners with redirect_from have it.
  constexpr std::string_view kRedirect = "vigil_listener_redirect_active";
  w.family(kRedirect, "gauge",
           "1 while the listener's redirect_from nftables redirect is in the kernel, else 0.");
  each([&](const L& l, const std::string& s) {
    if (!l.redirect) return;
    w.sample(kRedirect, s, ",from=\"" + l.redirect->from + "\"",
             uint64_t{l.redirect->active ? 1u : 0u});
  });
  w.family("vigil_listener_status", "gauge",
           "Octavia operating status of the listener: 1 for the current status, else 0.");
  each([&](const L& l, const std::string& s) {
    status_samples(w, "vigil_listener_status", s, l.operating_status);
  });
}

void pool_families(Writer& w, const Lbs& lbs) {
  std::vector<std::string> labels;
  for (const model::LoadBalancerView& lb : lbs) {
    for (const model::PoolView& p : lb.pools) labels.push_back(pool_labels(lb, p));
  }
  auto each = [&](auto f) {
    size_t i = 0;
    for (const model::LoadBalancerView& lb : lbs) {
      for (const model::PoolView& p : lb.pools) f(p, labels[i++]);
    }
  };
  w.family("vigil_pool_members", "gauge", "Members of the pool.");
  each([&](const model::PoolView& p, const std::string& s) {
    w.sample("vigil_pool_members", s, "", static_cast<uint64_t>(p.members.size()));
  });
  w.family("vigil_pool_members_in_rotation", "gauge", "Members receiving new connections.");
  each([&](const model::PoolView& p, const std::string& s) {
    uint64_t n = 0;
    for (const model::MemberView& m : p.members) n += m.in_rotation ? 1 : 0;
    w.sample("vigil_pool_members_in_rotation", s, "", n);
  });
  w.family("vigil_pool_fail_open", "gauge",
           "1 when no member is usable and the pool routes to all of them.");
  each([&](const model::PoolView& p, const std::string& s) {
    w.sample("vigil_pool_fail_open", s, "", uint64_t{p.fail_open_active});
  });
  w.family("vigil_pool_persistence_entries", "gauge",
           "Clients held in the stick table of a pool with session_persistence.");
  each([&](const model::PoolView& p, const std::string& s) {
    if (p.config.session_persistence.type == model::Persistence::kNone) return;
    w.sample("vigil_pool_persistence_entries", s, "", p.persistence_entries);
  });
  w.family("vigil_pool_members_source_up", "gauge",
           "With members_from: 1 while the API's members are current (listed and watched), 0 "
           "while they are the file's (the API has not answered) or the last known (it cannot "
           "be read).");
  each([&](const model::PoolView& p, const std::string& s) {
    if (!p.members_source) return;
    w.sample("vigil_pool_members_source_up", s, "",
             uint64_t{p.members_source->state == "following"});
  });
  w.family("vigil_pool_members_source_unconfirmed_seconds", "gauge",
           "With members_from: how long the API has not been read (0 while it is).");
  each([&](const model::PoolView& p, const std::string& s) {
    if (!p.members_source) return;
    w.sample("vigil_pool_members_source_unconfirmed_seconds", s, "",
             p.members_source->unconfirmed_seconds);
  });
  w.family("vigil_pool_members_source_failures_total", "counter",
           "With members_from: requests to the API that failed (connect, TLS, HTTP, bad answer).");
  each([&](const model::PoolView& p, const std::string& s) {
    if (!p.members_source) return;
    w.sample("vigil_pool_members_source_failures_total", s, "", p.members_source->failures);
  });
  w.family("vigil_pool_status", "gauge",
           "Octavia operating status of the pool: 1 for the current status, else 0.");
  each([&](const model::PoolView& p, const std::string& s) {
    status_samples(w, "vigil_pool_status", s, p.operating_status);
  });
  w.family("vigil_lb_status", "gauge",
           "Octavia operating status of the load balancer: 1 for the current status, else 0.");
  for (const model::LoadBalancerView& lb : lbs) {
    std::string s;
    append_label(s, "", "lb", name_or_id(lb.name, lb.id));
    append_label(s, ",", "lb_id", lb.id);
    status_samples(w, "vigil_lb_status", s, lb.operating_status);
  }
}

}  // namespace

size_t estimate(const Lbs& lbs, const std::vector<std::string>& member_labels) {
  // 46 lines per member (families, six statuses, three admin states, 15 histogram lines, five
  // disruption counters), each its labels and at most about 100 bytes of name, extra label and
  // value.
  constexpr size_t kMemberLines = 47;
  size_t n = 16384;
  for (const std::string& l : member_labels) n += kMemberLines * (l.size() + 100);
  for (const model::LoadBalancerView& lb : lbs) n += (lb.listeners.size() + lb.pools.size()) * 4096;
  return n;
}

const std::vector<std::string>& status_labels() {
  static const std::vector<std::string> kLabels = [] {
    std::vector<std::string> out;
    for (const auto& [status, name] : model::kOperatingStatusNames) {
      out.push_back(fmt::format(",status=\"{}\"", name));
    }
    return out;
  }();
  return kLabels;
}

void append_label(std::string& out, std::string_view sep, std::string_view key,
                  std::string_view value) {
  out += sep;
  out += key;
  out += "=\"";
  out += escape_label_value(value);
  out += '"';
}

}  // namespace metrics

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
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      // ESC, NUL and the other controls a name may hold (the API takes any string) would reach
      // terminals and parsers raw: U+FFFD stands for them.
      out += "\uFFFD";
    } else {
      out += c;
    }
  }
  return out;
}

std::string metrics_text(const std::vector<model::LoadBalancerView>& lbs, model::WallTime now) {
  const std::vector<std::string> member_labels = metrics::member_label_sets(lbs);
  metrics::Writer w(metrics::estimate(lbs, member_labels));
  metrics::member_families(w, lbs, member_labels, now);
  metrics::listener_families(w, lbs);
  metrics::pool_families(w, lbs);
  metrics::process_families(w, lbs);
  return w.take();
}

std::string metrics_text(const model::LoadBalancerView& lb, model::WallTime now) {
  return metrics_text(std::vector<model::LoadBalancerView>{lb}, now);
}

}  // namespace vigil::admin
