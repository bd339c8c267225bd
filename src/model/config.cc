#include "model/config.h"

#include <tuple>

namespace vigil::model {

bool same_checks(const HealthMonitor& a, const HealthMonitor& b) {
  auto key = [](const HealthMonitor& m) {
    return std::tie(m.type, m.path, m.http_method, m.host, m.interval, m.fast_interval, m.timeout,
                    m.healthy_threshold, m.unhealthy_threshold, m.tls.verify, m.tls.ca_file,
                    m.tls.server_name, m.tls.client_cert, m.tls.client_key, m.bearer_token_file,
                    m.reuse_connection);
  };
  return key(a) == key(b) && a.expected_codes.to_string() == b.expected_codes.to_string();
}

std::string_view to_string(Algorithm a) {
  switch (a) {
    case Algorithm::kRoundRobin:
      return "round_robin";
    case Algorithm::kLeastConnections:
      return "least_connections";
    case Algorithm::kSourceIp:
      return "source_ip";
  }
  return "?";
}

std::string_view to_string(MonitorType t) {
  switch (t) {
    case MonitorType::kTcp:
      return "TCP";
    case MonitorType::kTlsHello:
      return "TLS-HELLO";
    case MonitorType::kHttp:
      return "HTTP";
    case MonitorType::kHttps:
      return "HTTPS";
  }
  return "?";
}

}  // namespace vigil::model
