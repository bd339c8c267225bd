// libFuzzer target for the Octavia API's request bodies, the state file and what etcd holds of
// the objects (admin.store type etcd): any input must give an object or a 4xx error, never a
// crash, a hang or an exception. Built only with -DVIGIL_FUZZ=ON and clang; run:
// fuzz_admin_api corpus/
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "admin/octavia/ops.h"
#include "admin/octavia/store_json.h"
#include "admin/override_json.h"

namespace {

using namespace vigil::admin;

// A load balancer with a listener, a pool with a monitor and a member, so updates have targets.
ApiState seeded(const OpContext& c) {
  ApiState s;
  const std::string lb = *create_loadbalancer(s, R"({"loadbalancer": {}})", c);
  const std::string l = *create_listener(s,
                                         R"({"listener": {"loadbalancer_id": ")" + lb +
                                             R"(", "protocol": "TCP", "protocol_port": 1}})",
                                         c);
  const std::string p = *create_pool(s,
                                     R"({"pool": {"listener_id": ")" + l +
                                         R"(", "protocol": "TCP", "lb_algorithm": "SOURCE_IP"}})",
                                     c);
  (void)create_member(s, p, R"({"member": {"address": "127.0.0.1", "protocol_port": 2}})", c);
  (void)create_healthmonitor(
      s,
      R"({"healthmonitor": {"pool_id": ")" + p +
          R"(", "type": "HTTP", "delay": 1, "timeout": 1, "max_retries": 1}})",
      c);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  int next = 0;
  const OpContext c{
      .now = "2024-05-01T12:00:00",
      .new_id = [&] { return "00000000-0000-4000-8000-" + std::to_string(100000000000 + ++next); },
      .is_local_address = [](std::string_view a) { return a == "127.0.0.1"; }};
  ApiState s = seeded(c);
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  const ApiLoadBalancer& lb = s.loadbalancers[0];
  const std::string pool = lb.pools[0].id, listener = lb.listeners[0].id;
  const std::string member = lb.pools[0].members[0].id, monitor = lb.pools[0].healthmonitor->id;
  switch (data[0] % 12) {
    case 0:
      (void)create_loadbalancer(s, body, c);
      break;
    case 1:
      (void)create_listener(s, body, c);
      break;
    case 2:
      (void)create_pool(s, body, c);
      break;
    case 3:
      (void)create_member(s, pool, body, c);
      break;
    case 4:
      (void)create_healthmonitor(s, body, c);
      break;
    case 5:
      (void)update_loadbalancer(s, lb.id, body, c);
      break;
    case 6:
      (void)update_listener(s, listener, body, c);
      break;
    case 7:
      (void)update_pool(s, pool, body, c);
      break;
    case 8:
      (void)update_member(s, member, body, c);
      break;
    case 9:
      (void)update_healthmonitor(s, monitor, body, c);
      break;
    case 10:
      (void)parse_override_request(body);  // PUT /v1/pools/{pool}/members/{member}/admin
      break;
    default:
      if (auto loaded = state_from_json(body)) (void)state_to_json(*loaded);
      // What etcd holds (etcd_layout.h): a load balancer's key and a member's.
      if (auto lb = lb_from_json(body)) (void)lb_shell_to_json(*lb);
      if (auto m = member_from_json(body)) (void)member_to_json(*m);
  }
  (void)state_to_json(s);
  return 0;
}
