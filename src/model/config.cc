#include "model/config.h"

namespace vigil::model {

std::string_view to_string(Algorithm a) {
  switch (a) {
    case Algorithm::kRoundRobin: return "round_robin";
    case Algorithm::kLeastConnections: return "least_connections";
    case Algorithm::kSourceIp: return "source_ip";
  }
  return "?";
}

std::string_view to_string(MonitorType t) {
  switch (t) {
    case MonitorType::kTcp: return "TCP";
    case MonitorType::kTlsHello: return "TLS-HELLO";
    case MonitorType::kHttp: return "HTTP";
    case MonitorType::kHttps: return "HTTPS";
  }
  return "?";
}

}  // namespace vigil::model
