// The vigil YAML grammar: one key table per section (HAProxy's keyword -> parse function), used by
// the loader, for "unknown key" errors and to write the key reference in docs. Internal to config/.
#pragma once

#include <string>
#include <vector>

#include "config/yaml_reader.h"
#include "model/config.h"
#include "model/process.h"

namespace vigil::config {

// What a section reads besides the model's fields.
struct MonitorDraft : model::HealthMonitor {
  bool type_known = false;  // `type` held a supported monitor type
  bool type_none = false;   // `type: none`
};
struct PoolDraft : model::Pool {
  bool monitor_none = false;  // `health_monitor: none` or `{type: none}`
};
// The file's top level: its load balancer, and beside it the process settings it alone may set.
struct ConfigDraft : model::Config {
  model::Process process;
  std::vector<std::string> monitor_opt_outs;
};

constexpr unsigned monitor_bit(model::MonitorType t) { return 1u << static_cast<unsigned>(t); }
// The monitor types for which `applies` holds, as a mask of monitor_bit()s.
constexpr unsigned monitor_mask(bool (*applies)(model::MonitorType)) {
  unsigned mask = 0;
  for (const auto& s : model::kMonitorTypeNames) {
    if (applies(s.value)) mask |= monitor_bit(s.value);
  }
  return mask;
}
inline constexpr unsigned kHttpMonitors = monitor_mask(model::uses_http);
inline constexpr unsigned kTlsMonitors = monitor_mask(model::uses_tls);
std::string monitor_types_text(unsigned mask);  // "HTTP and HTTPS"

// Upper limits that keep durations sane (and the timing arithmetic far from overflow).
inline constexpr Duration kMaxCheckDuration = std::chrono::hours(24);
inline constexpr Duration kMaxIdleTimeout = std::chrono::hours(24 * 30);

const Section<ConfigDraft>& top_section();
const Section<model::Admin>& admin_section();
const Section<model::AdminMetrics>& admin_metrics_section();
const Section<model::Log>& log_section();
const Section<model::Peer>& peer_section();
const Section<model::PeersAuth>& peers_auth_section();
const Section<model::PeerTls>& peer_tls_section();
const Section<model::Store>& store_section();
const Section<model::StoreTls>& store_tls_section();
// `admin.store` (store_keys.cc): the section, then what holds across its keys.
void read_store(YamlReader& r, const Field& f, model::Admin& a);
const Section<model::Listener>& listener_section();
const Section<PoolDraft>& pool_section();
const Section<model::Member>& member_section();
const Section<MonitorDraft>& monitor_section();
const Section<model::TlsCheck>& tls_section();

const Section<model::SessionPersistence>& persistence_section();  // persistence_keys.cc
void read_session_persistence(YamlReader& r, const Field& f, PoolDraft& pool);

// pool.members_from (members_from_keys.cc).
const Section<model::KubernetesMembers>& kubernetes_members_section();
void read_members_from(YamlReader& r, const Field& f, PoolDraft& pool);

// pool.health_monitor: a map, `none`, or nothing (same as absent).
void read_health_monitor(YamlReader& r, const Field& f, PoolDraft& pool);

}  // namespace vigil::config
