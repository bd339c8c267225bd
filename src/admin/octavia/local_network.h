// This host as Neutron would show it, for `openstack loadbalancer create --vip-subnet-id`: one
// subnet ("vigil-local") and its network stand for the host's own addresses, with fixed ids, and
// no ports. A load balancer's vip_address must be an address of this host: vigil binds it.
// Control thread (is_local_address reads the interfaces).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "admin/http.h"
#include "admin/target.h"

namespace vigil::admin {

inline constexpr std::string_view kLocalSubnetName = "vigil-local";

std::string local_subnet_id();   // uuid_v5("vigil/subnet/local")
std::string local_network_id();  // uuid_v5("vigil/network/local")

// True for an address of one of this host's interfaces (getifaddrs), for every address of
// 127.0.0.0/8, which Linux routes to the loopback interface, and for one a local route covers
// (bind() accepts it).
bool is_local_address(std::string_view address);

// GET /v2.0/subnets[/{id}], /v2.0/networks[/{id}], /v2.0/ports[/{id}] with `id` and `name`
// filters; nullopt for other paths. Requires: target.segments starts with "v2" or "v2.0".
std::optional<Response> route_neutron(std::string_view method, const Target& target);

}  // namespace vigil::admin
