// The per-pool families of /metrics (members, rotation, fail-open, persistence, members_from,
// status) and the load balancers' status.
#include "admin/metrics_writer.h"

namespace vigil::admin::metrics {
namespace {

using P = model::PoolView;

void members(Writer& w, std::string_view name, const P& p, const std::string& s, model::WallTime) {
  w.sample(name, s, "", static_cast<uint64_t>(p.members.size()));
}

void in_rotation(Writer& w, std::string_view name, const P& p, const std::string& s,
                 model::WallTime) {
  uint64_t n = 0;
  for (const model::MemberView& m : p.members) n += m.in_rotation ? 1 : 0;
  w.sample(name, s, "", n);
}

void fail_open(Writer& w, std::string_view name, const P& p, const std::string& s,
               model::WallTime) {
  w.sample(name, s, "", uint64_t{p.fail_open_active});
}

void persistence(Writer& w, std::string_view name, const P& p, const std::string& s,
                 model::WallTime) {
  if (p.config.session_persistence.type == model::Persistence::kNone) return;
  w.sample(name, s, "", p.persistence_entries);
}

// The members_from families: only pools with that key have them.
void source_up(Writer& w, std::string_view name, const P& p, const std::string& s,
               model::WallTime) {
  if (p.members_source) {
    w.sample(name, s, "", uint64_t{p.members_source->state == "following"});
  }
}

void source_unconfirmed(Writer& w, std::string_view name, const P& p, const std::string& s,
                        model::WallTime) {
  if (p.members_source) w.sample(name, s, "", p.members_source->unconfirmed_seconds);
}

void source_failures(Writer& w, std::string_view name, const P& p, const std::string& s,
                     model::WallTime) {
  if (p.members_source) w.sample(name, s, "", p.members_source->failures);
}

void status(Writer& w, std::string_view name, const P& p, const std::string& s, model::WallTime) {
  status_samples(w, name, s, p.operating_status);
}

void lb_status(Writer& w, std::string_view name, const model::LoadBalancerView& lb,
               const std::string& s, model::WallTime) {
  status_samples(w, name, s, lb.operating_status);
}

constexpr Family<P> kFamilies[] = {
    {"vigil_pool_members", "gauge", "Members of the pool.", &members},
    {"vigil_pool_members_in_rotation", "gauge", "Members receiving new connections.", &in_rotation},
    {"vigil_pool_fail_open", "gauge",
     "1 when no member is usable and the pool routes to all of them.", &fail_open},
    {"vigil_pool_persistence_entries", "gauge",
     "Clients held in the stick table of a pool with session_persistence.", &persistence},
    {"vigil_pool_members_source_up", "gauge",
     "With members_from: 1 while the API's members are current (listed and watched), 0 while "
     "they are the file's (the API has not answered) or the last known (it cannot be read).",
     &source_up},
    {"vigil_pool_members_source_unconfirmed_seconds", "gauge",
     "With members_from: how long the API has not been read (0 while it is).", &source_unconfirmed},
    {"vigil_pool_members_source_failures_total", "counter",
     "With members_from: requests to the API that failed (connect, TLS, HTTP, bad answer).",
     &source_failures},
    {"vigil_pool_status", "gauge",
     "Octavia operating status of the pool: 1 for the current status, else 0.", &status},
};

constexpr Family<model::LoadBalancerView> kLbFamilies[] = {
    {"vigil_lb_status", "gauge",
     "Octavia operating status of the load balancer: 1 for the current status, else 0.",
     &lb_status},
};

}  // namespace

std::span<const Family<P>> pool_families() { return kFamilies; }
std::span<const Family<model::LoadBalancerView>> lb_families() { return kLbFamilies; }

std::string pool_labels(const model::LoadBalancerView& lb, const P& p) {
  std::string s;
  append_label(s, "", "lb", name_or_id(lb.name, lb.id));
  append_label(s, ",", "pool", name_or_id(p.config.name, p.id));
  append_label(s, ",", "pool_id", p.id);
  return s;
}

std::string lb_labels(const model::LoadBalancerView& lb) {
  std::string s;
  append_label(s, "", "lb", name_or_id(lb.name, lb.id));
  append_label(s, ",", "lb_id", lb.id);
  return s;
}

}  // namespace vigil::admin::metrics
