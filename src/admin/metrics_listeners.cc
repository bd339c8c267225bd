// The per-listener families of /metrics: sessions, bytes, refusals and the operating status.
#include "admin/metrics_writer.h"

namespace vigil::admin::metrics {
namespace {

using L = model::ListenerView;

template <auto Field>
void value_of(Writer& w, std::string_view name, const L& l, const std::string& s, model::WallTime) {
  w.sample(name, s, "", l.*Field);
}

template <auto Field>
void counter(Writer& w, std::string_view name, const L& l, const std::string& s, model::WallTime) {
  w.sample(name, s, "", l.counters.*Field);
}

// Only listeners with accept_proxy have these; the reasons are a fixed set.
void proxy_refused(Writer& w, std::string_view name, const L& l, const std::string& s,
                   model::WallTime) {
  if (!l.config.accept_proxy) return;
  w.sample(name, s, ",reason=\"untrusted\"", l.counters.proxy_untrusted);
  w.sample(name, s, ",reason=\"invalid\"", l.counters.proxy_invalid);
  w.sample(name, s, ",reason=\"timeout\"", l.counters.proxy_timeout);
}

// Only listeners with allowed_cidrs have it.
void cidr_refused(Writer& w, std::string_view name, const L& l, const std::string& s,
                  model::WallTime) {
  if (l.config.allowed_cidrs.empty()) return;
  w.sample(name, s, ",reason=\"allowed_cidrs\"", l.counters.refused_cidr);
}

// Only listeners with redirect_from have it.
void redirect(Writer& w, std::string_view name, const L& l, const std::string& s, model::WallTime) {
  if (!l.redirect) return;
  w.sample(name, s, ",from=\"" + l.redirect->from + "\"", uint64_t{l.redirect->active ? 1u : 0u});
}

void status(Writer& w, std::string_view name, const L& l, const std::string& s, model::WallTime) {
  status_samples(w, name, s, l.operating_status);
}

using C = model::ListenerCounters;

constexpr Family<L> kFamilies[] = {
    {"vigil_listener_active_connections", "gauge", "Client sessions open on the listener.",
     &value_of<&L::active_connections>},
    {"vigil_listener_connections_total", "counter", "Client sessions accepted.",
     &value_of<&L::total_connections>},
    {"vigil_listener_received_bytes_total", "counter", "Bytes received from clients.",
     &counter<&C::bytes_in>},
    {"vigil_listener_sent_bytes_total", "counter", "Bytes sent to clients.",
     &counter<&C::bytes_out>},
    {"vigil_listener_rejected_connections_total", "counter",
     "Client connections closed at once because the listener had max_connections open.",
     &counter<&C::rejected>},
    {"vigil_listener_no_backend_connections_total", "counter",
     "Client connections closed because no member could be reached.", &counter<&C::no_backend>},
    {"vigil_listener_connect_failures_total", "counter",
     "Connects from this listener's sessions to members that failed (or whose first byte did "
     "not come).",
     &counter<&C::connect_failures>},
    {"vigil_listener_connect_retries_total", "counter",
     "Connects to another member after one failed (replays included).", &counter<&C::retried>},
    {"vigil_listener_connect_hedges_total", "counter",
     "Second connects started to another member because the first was slow (hedge_after).",
     &counter<&C::hedged>},
    {"vigil_listener_bind_errors_total", "counter",
     "Attempts to bind the listener's port that failed (taken at start-up; retried).",
     &value_of<&L::bind_errors>},
    {"vigil_listener_replays_total", "counter",
     "Client first flights sent again to another member that failed before its first byte.",
     &counter<&C::replayed>},
    {"vigil_listener_proxy_refused_total", "counter",
     "Client connections closed by accept_proxy: reason untrusted (not from trusted_sources), "
     "invalid (malformed header) or timeout (no complete header within proxy_header_timeout).",
     &proxy_refused},
    {"vigil_listener_connections_refused_total", "counter",
     "Client connections closed at accept, before any byte went to a member: reason "
     "allowed_cidrs (the client's address is outside the listener's allowed_cidrs).",
     &cidr_refused},
    {"vigil_listener_redirect_active", "gauge",
     "1 while the listener's redirect_from nftables redirect is in the kernel, else 0.", &redirect},
    {"vigil_listener_status", "gauge",
     "Octavia operating status of the listener: 1 for the current status, else 0.", &status},
};

}  // namespace

std::span<const Family<L>> listener_families() { return kFamilies; }

std::string listener_labels(const model::LoadBalancerView& lb, const L& l) {
  std::string s;
  append_label(s, "", "lb", name_or_id(lb.name, lb.id));
  append_label(s, ",", "listener", name_or_id(l.config.name, l.id));
  append_label(s, ",", "listener_id", l.id);
  return s;
}

}  // namespace vigil::admin::metrics
