// Octavia's spellings, as its v2 API writes them: algorithms, monitor types, protocols and the
// provisioning status. The rest of admin/octavia/ reads and writes names only through this table.
// Constant data and pure functions; any thread.
#pragma once

#include <optional>
#include <string_view>

#include "model/config.h"
#include "model/status.h"

namespace vigil::admin {

inline constexpr model::Spelling<model::Algorithm> kOctaviaAlgorithms[] = {
    {model::Algorithm::kRoundRobin, "ROUND_ROBIN"},
    {model::Algorithm::kLeastConnections, "LEAST_CONNECTIONS"},
    {model::Algorithm::kSourceIp, "SOURCE_IP"},
};
// The types vigil runs; Octavia's PING, UDP-CONNECT and SCTP are unknown names to vigil. They
// read as vigil's own names, but are Octavia's: vigil's may change, the API's may not.
inline constexpr model::Spelling<model::MonitorType> kOctaviaMonitorTypes[] = {
    {model::MonitorType::kTcp, "TCP"},
    {model::MonitorType::kTlsHello, "TLS-HELLO"},
    {model::MonitorType::kHttp, "HTTP"},
    {model::MonitorType::kHttps, "HTTPS"},
};
// Every type Octavia 11 takes (octavia_lib's SUPPORTED_HEALTH_MONITOR_TYPES, in its order): a
// name outside them is Octavia's "Value should be one of" 400, one inside that vigil does not run
// (kOctaviaMonitorTypes) vigil's own refusal.
inline constexpr std::string_view kOctaviaAllMonitorTypes[] = {
    "HTTP", "HTTPS", "PING", "TCP", "TLS-HELLO", "UDP-CONNECT", "SCTP"};

// The only protocol of listeners vigil accepts (it balances TCP).
inline constexpr std::string_view kOctaviaTcp = "TCP";
// A load balancer's topology. vigil is one daemon per node either way: ACTIVE_STANDBY says that
// a keepalived pair moves its vip_address (docs/ha.md), so the address need not be here yet and
// its listeners bind it with freebind.
inline constexpr std::string_view kOctaviaSingle = "SINGLE";
inline constexpr std::string_view kOctaviaActiveStandby = "ACTIVE_STANDBY";
inline constexpr std::string_view kOctaviaTopologies[] = {kOctaviaSingle, kOctaviaActiveStandby};
// A pool's protocol: TCP, or TCP with a PROXY header to the members (Octavia's PROXY is v1,
// PROXYV2 is v2).
inline constexpr model::Spelling<model::ProxyProtocol> kOctaviaPoolProtocols[] = {
    {model::ProxyProtocol::kOff, "TCP"},
    {model::ProxyProtocol::kV1, "PROXY"},
    {model::ProxyProtocol::kV2, "PROXYV2"},
};
// Every object's provisioning_status: vigil applies a change before it answers the request.
inline constexpr std::string_view kOctaviaActive = "ACTIVE";

constexpr std::string_view octavia_name(model::Algorithm a) {
  return model::name_in<model::Algorithm>(kOctaviaAlgorithms, a);
}
constexpr std::string_view octavia_name(model::MonitorType t) {
  return model::name_in<model::MonitorType>(kOctaviaMonitorTypes, t);
}
constexpr std::string_view octavia_pool_protocol(model::ProxyProtocol p) {
  return model::name_in<model::ProxyProtocol>(kOctaviaPoolProtocols, p);
}
// Octavia's operating statuses are the model's own names (model/status.h).
constexpr std::string_view octavia_name(model::OperatingStatus s) { return model::to_string(s); }

// Exact names, as Octavia compares them; nullopt for any other text.
constexpr std::optional<model::Algorithm> octavia_algorithm(std::string_view name) {
  return model::value_in<model::Algorithm>(kOctaviaAlgorithms, name);
}
constexpr std::optional<model::MonitorType> octavia_monitor_type(std::string_view name) {
  return model::value_in<model::MonitorType>(kOctaviaMonitorTypes, name);
}

}  // namespace vigil::admin
