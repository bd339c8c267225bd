#include "admin/octavia/filter_keys.h"

#include <span>

namespace vigil::admin {
namespace {

struct Entry {
  std::string_view name;
  FilterKey key;
};

constexpr FilterKind kText = FilterKind::kText;
constexpr FilterKind kNumber = FilterKind::kNumber;
constexpr FilterKind kBool = FilterKind::kBool;
constexpr FilterKind kRelation = FilterKind::kRelation;

// Every collection's: the columns of Octavia's IdMixin, ProjectMixin and the statuses.
constexpr Entry kCommon[] = {
    {"id", {"id", kText}},
    {"project_id", {"project_id", kText}},
    {"provisioning_status", {"provisioning_status", kText}},
    {"operating_status", {"operating_status", kText}},
    {"admin_state_up", {"admin_state_up", kBool}},
    {"enabled", {"admin_state_up", kBool}},
    {"created_at", {"created_at", kText}},
    {"updated_at", {"updated_at", kText}},
};

// Measured from octavia.db.models (the data model's vars and __v2_wsme__'s _type_to_model_map).
// List-valued and relationship columns (`listeners`, `sni_container_refs`, `allowed_cidrs`) are
// left out: Octavia answers 500 for them (an SQL error), vigil the 400 of an unknown filter.
constexpr Entry kLoadBalancers[] = {
    {"name", {"name", kText}},
    {"description", {"description", kText}},
    {"provider", {"provider", kText}},
    {"flavor_id", {"flavor_id", kText}},
    {"availability_zone", {"availability_zone", kText}},
    {"topology", {"vigil_topology", kText}},  // Octavia's column, shown as vigil's field
    {"server_group_id", {"server_group_id", kText}},
    {"vip_address", {"vip_address", kText}},
    {"vip_subnet_id", {"vip_subnet_id", kText}},
    {"vip_port_id", {"vip_port_id", kText}},
    {"vip_network_id", {"vip_network_id", kText}},
    {"vip_qos_policy_id", {"vip_qos_policy_id", kText}},
};

constexpr Entry kListeners[] = {
    {"name", {"name", kText}},
    {"description", {"description", kText}},
    {"protocol", {"protocol", kText}},
    {"protocol_port", {"protocol_port", kNumber}},
    {"connection_limit", {"connection_limit", kNumber}},
    {"default_pool_id", {"default_pool_id", kText}},
    {"loadbalancer_id", {"loadbalancers", kRelation}},
    {"load_balancer_id", {"loadbalancers", kRelation}},
    {"timeout_client_data", {"timeout_client_data", kNumber}},
    {"timeout_member_connect", {"timeout_member_connect", kNumber}},
    {"timeout_member_data", {"timeout_member_data", kNumber}},
    {"timeout_tcp_inspect", {"timeout_tcp_inspect", kNumber}},
    {"default_tls_container_ref", {"default_tls_container_ref", kText}},
    {"tls_certificate_id", {"default_tls_container_ref", kText}},
    {"client_ca_tls_container_ref", {"client_ca_tls_container_ref", kText}},
    {"client_ca_tls_certificate_id", {"client_ca_tls_container_ref", kText}},
    {"client_crl_container_ref", {"client_crl_container_ref", kText}},
    {"client_crl_container_id", {"client_crl_container_ref", kText}},
    {"client_authentication", {"client_authentication", kText}},
    {"tls_ciphers", {"tls_ciphers", kText}},
};

constexpr Entry kPools[] = {
    {"name", {"name", kText}},
    {"description", {"description", kText}},
    {"protocol", {"protocol", kText}},
    {"lb_algorithm", {"lb_algorithm", kText}},
    {"loadbalancer_id", {"loadbalancers", kRelation}},
    {"load_balancer_id", {"loadbalancers", kRelation}},
    {"healthmonitor_id", {"healthmonitor_id", kText}},
    {"tls_enabled", {"tls_enabled", kBool}},
    {"tls_container_ref", {"tls_container_ref", kText}},
    {"tls_certificate_id", {"tls_container_ref", kText}},
    {"ca_tls_container_ref", {"ca_tls_container_ref", kText}},
    {"ca_tls_certificate_id", {"ca_tls_container_ref", kText}},
    {"crl_container_ref", {"crl_container_ref", kText}},
    {"crl_container_id", {"crl_container_ref", kText}},
    {"tls_ciphers", {"tls_ciphers", kText}},
};

constexpr Entry kMembers[] = {
    {"name", {"name", kText}},
    {"address", {"address", kText}},
    {"ip_address", {"address", kText}},
    {"protocol_port", {"protocol_port", kNumber}},
    {"weight", {"weight", kNumber}},
    {"backup", {"backup", kBool}},
    {"subnet_id", {"subnet_id", kText}},
    {"monitor_address", {"monitor_address", kText}},
    {"monitor_port", {"monitor_port", kNumber}},
    // A member's JSON has no pool_id (its path names the pool): reads.cc adds it to filter.
    {"pool_id", {"pool_id", kText}},
};

constexpr Entry kHealthMonitors[] = {
    {"name", {"name", kText}},
    {"type", {"type", kText}},
    {"delay", {"delay", kNumber}},
    {"timeout", {"timeout", kNumber}},
    {"max_retries", {"max_retries", kNumber}},
    {"rise_threshold", {"max_retries", kNumber}},
    {"max_retries_down", {"max_retries_down", kNumber}},
    {"fall_threshold", {"max_retries_down", kNumber}},
    {"http_method", {"http_method", kText}},
    {"url_path", {"url_path", kText}},
    {"expected_codes", {"expected_codes", kText}},
    {"http_version", {"http_version", kNumber}},
    {"domain_name", {"domain_name", kText}},
    {"pool_id", {"pools", kRelation}},
};

constexpr Entry kL7Policies[] = {
    {"name", {"name", kText}},
    {"description", {"description", kText}},
    {"action", {"action", kText}},
    {"position", {"position", kNumber}},
    {"listener_id", {"listener_id", kText}},
    {"redirect_pool_id", {"redirect_pool_id", kText}},
    {"redirect_url", {"redirect_url", kText}},
    {"redirect_prefix", {"redirect_prefix", kText}},
    {"redirect_http_code", {"redirect_http_code", kNumber}},
};

// Collections without projects or statuses of their own: their whole tables.
constexpr Entry kAmphorae[] = {
    {"id", {"id", kText}},
    {"loadbalancer_id", {"loadbalancer_id", kText}},
    {"load_balancer_id", {"loadbalancer_id", kText}},
    {"compute_id", {"compute_id", kText}},
    {"lb_network_ip", {"lb_network_ip", kText}},
    {"vrrp_ip", {"vrrp_ip", kText}},
    {"ha_ip", {"ha_ip", kText}},
    {"vrrp_port_id", {"vrrp_port_id", kText}},
    {"ha_port_id", {"ha_port_id", kText}},
    {"role", {"role", kText}},
    {"status", {"status", kText}},
    {"image_id", {"image_id", kText}},
    {"compute_flavor", {"compute_flavor", kText}},
    {"cached_zone", {"cached_zone", kText}},
    {"created_at", {"created_at", kText}},
    {"updated_at", {"updated_at", kText}},
};

constexpr Entry kFlavors[] = {
    {"id", {"id", kText}},
    {"name", {"name", kText}},
    {"description", {"description", kText}},
    {"enabled", {"enabled", kBool}},
    {"flavor_profile_id", {"flavor_profile_id", kText}},
};

constexpr Entry kAvailabilityZones[] = {
    {"name", {"name", kText}},
    {"description", {"description", kText}},
    {"enabled", {"enabled", kBool}},
    {"availability_zone_profile_id", {"availability_zone_profile_id", kText}},
};

constexpr Entry kFlavorProfiles[] = {
    {"id", {"id", kText}},
    {"name", {"name", kText}},
    {"provider_name", {"provider_name", kText}},
    {"flavor_data", {"flavor_data", kText}},
};

constexpr Entry kAvailabilityZoneProfiles[] = {
    {"id", {"id", kText}},
    {"name", {"name", kText}},
    {"provider_name", {"provider_name", kText}},
    {"availability_zone_data", {"availability_zone_data", kText}},
};

// Quotas are kept per project (none in vigil).
constexpr Entry kQuotas[] = {
    {"project_id", {"project_id", kText}}, {"load_balancer", {"load_balancer", kNumber}},
    {"listener", {"listener", kNumber}},   {"member", {"member", kNumber}},
    {"pool", {"pool", kNumber}},           {"health_monitor", {"health_monitor", kNumber}},
    {"l7policy", {"l7policy", kNumber}},   {"l7rule", {"l7rule", kNumber}},
};

std::optional<FilterKey> in(std::span<const Entry> table, std::string_view name) {
  for (const Entry& e : table) {
    if (e.name == name) return e.key;
  }
  return std::nullopt;
}

}  // namespace

std::optional<FilterKey> filter_key(std::string_view collection, std::string_view name) {
  std::span<const Entry> own;
  bool common = true;
  if (collection == "loadbalancers") {
    own = kLoadBalancers;
  } else if (collection == "listeners") {
    own = kListeners;
  } else if (collection == "pools") {
    own = kPools;
  } else if (collection == "members") {
    own = kMembers;
  } else if (collection == "healthmonitors") {
    own = kHealthMonitors;
  } else if (collection == "l7policies") {
    own = kL7Policies;
  } else {
    common = false;
    if (collection == "amphorae") own = kAmphorae;
    if (collection == "quotas") own = kQuotas;
    if (collection == "flavors") own = kFlavors;
    if (collection == "availabilityzones") own = kAvailabilityZones;
    if (collection == "flavorprofiles") own = kFlavorProfiles;
    if (collection == "availabilityzoneprofiles") own = kAvailabilityZoneProfiles;
  }
  if (auto key = in(own, name)) return key;
  return common ? in(kCommon, name) : std::nullopt;
}

}  // namespace vigil::admin
