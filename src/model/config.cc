#include "model/config.h"

#include <tuple>

namespace vigil::model {

bool same_checks(const HealthMonitor& a, const HealthMonitor& b) {
  auto key = [](const HealthMonitor& m) {
    return std::tie(m.type, m.path, m.http_method, m.host, m.interval, m.fast_interval, m.timeout,
                    m.healthy_threshold, m.unhealthy_threshold, m.tls.verify, m.tls.ca_file,
                    m.tls.server_name, m.tls.client_cert, m.tls.client_key, m.bearer_token_file,
                    m.reuse_connection, m.send_proxy);
  };
  return key(a) == key(b) && a.expected_codes.to_string() == b.expected_codes.to_string();
}

}  // namespace vigil::model
