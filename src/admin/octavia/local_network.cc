#include "admin/octavia/local_network.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <cstring>

#include "model/ids.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

json::object subnet() {
  return json::object{
      {"id", local_subnet_id()},
      {"name", kLocalSubnetName},
      {"description", "this host's addresses: a load balancer's vip_address must be one of them"},
      {"network_id", local_network_id()},
      {"tenant_id", ""},
      {"project_id", ""},
      {"ip_version", 4},
      {"cidr", "127.0.0.0/8"},
      {"gateway_ip", nullptr},
      {"enable_dhcp", false},
      {"allocation_pools", json::array()},
      {"dns_nameservers", json::array()},
      {"host_routes", json::array()},
      {"service_types", json::array()},
      {"subnetpool_id", nullptr},
      {"segment_id", nullptr},
      {"ipv6_address_mode", nullptr},
      {"ipv6_ra_mode", nullptr},
      {"revision_number", 0},
      {"tags", json::array()},
  };
}

json::object network() {
  return json::object{
      {"id", local_network_id()},
      {"name", kLocalSubnetName},
      {"description", "this host"},
      {"subnets", json::array{json::value(local_subnet_id())}},
      {"status", "ACTIVE"},
      {"admin_state_up", true},
      {"shared", true},
      {"router:external", false},
      {"port_security_enabled", false},
      {"mtu", 65536},
      {"tenant_id", ""},
      {"project_id", ""},
      {"revision_number", 0},
      {"tags", json::array()},
  };
}

Response json_response(int status, const json::object& body) {
  Response r;
  r.status = status;
  r.body = json::serialize(body);
  return r;
}

// Neutron's error shape, which neutronclient reads.
Response neutron_not_found(std::string_view type, std::string_view what, std::string_view id) {
  return json_response(
      404, json::object{
               {"NeutronError", json::object{
                                    {"type", fmt::format("{}NotFound", type)},
                                    {"message", fmt::format("{} {} could not be found.", what, id)},
                                    {"detail", ""},
                                }}});
}

bool same_address(const sockaddr* sa, int family, const void* want) {
  if (sa == nullptr || sa->sa_family != family) return false;
  if (family == AF_INET) {
    return std::memcmp(&reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, want, 4) == 0;
  }
  return std::memcmp(&reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, want, 16) == 0;
}

// A local route without an interface address (`ip route add local 192.0.2.0/24 dev lo`, which a
// BGP fleet uses to accept every service address it may announce): the kernel lets a socket
// bind the address, which is what vigil's listener will do.
bool bindable(int family, const unsigned char* address) {
  sockaddr_storage sa{};
  socklen_t size = 0;
  if (family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&sa);
    in->sin_family = AF_INET;
    std::memcpy(&in->sin_addr, address, 4);
    size = sizeof(sockaddr_in);
  } else {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&sa);
    in6->sin6_family = AF_INET6;
    std::memcpy(&in6->sin6_addr, address, 16);
    size = sizeof(sockaddr_in6);
  }
  const int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const bool bound = ::bind(fd, reinterpret_cast<const sockaddr*>(&sa), size) == 0;
  ::close(fd);
  return bound;
}

// Neutron's filters, as the CLI's lookups use them (`?name=vigil-local`): a parameter naming a
// string field of the object keeps those with that value; others (`fields`) are ignored.
bool neutron_matches(const json::object& o, const Target& target) {
  for (const auto& [key, want] : target.query) {
    const json::value* v = o.if_contains(key);
    if (v != nullptr && v->is_string() && v->as_string() != want) return false;
  }
  return true;
}

}  // namespace

std::string local_subnet_id() { return model::uuid_v5("vigil/subnet/local"); }
std::string local_network_id() { return model::uuid_v5("vigil/network/local"); }

bool is_local_address(std::string_view address) {
  const std::string text(address);
  unsigned char buf[16];
  int family = AF_INET;
  if (inet_pton(AF_INET, text.c_str(), buf) != 1) {
    family = AF_INET6;
    if (inet_pton(AF_INET6, text.c_str(), buf) != 1) return false;
  }
  if (family == AF_INET && buf[0] == 127) return true;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return false;
  bool found = false;
  for (ifaddrs* i = list; i != nullptr && !found; i = i->ifa_next) {
    found = same_address(i->ifa_addr, family, buf);
  }
  freeifaddrs(list);
  return found || bindable(family, buf);
}

std::optional<Response> route_neutron(std::string_view method, const Target& target) {
  const std::vector<std::string>& s = target.segments;
  if (s.size() < 2 || s.size() > 3) return std::nullopt;
  struct Kind {
    std::string_view plural, singular, type, what;
  };
  static constexpr Kind kKinds[] = {{"subnets", "subnet", "Subnet", "Subnet"},
                                    {"networks", "network", "Network", "Network"},
                                    {"ports", "port", "Port", "Port"}};
  for (const Kind& k : kKinds) {
    if (s[1] != k.plural) continue;
    if (method != "GET") {
      Response r = fault(405, "Method not allowed: vigil shows this host's network read-only");
      r.headers.emplace_back("Allow", "GET");
      return r;
    }
    std::vector<json::object> items;  // vigil has no ports
    if (k.plural == "subnets") items.push_back(subnet());
    if (k.plural == "networks") items.push_back(network());
    if (s.size() == 3) {
      for (json::object& o : items) {
        if (o.at("id").as_string() == s[2]) return json_response(200, {{k.singular, o}});
      }
      return neutron_not_found(k.type, k.what, s[2]);
    }
    json::array out;
    for (json::object& o : items) {
      if (neutron_matches(o, target)) out.push_back(std::move(o));
    }
    return json_response(200, {{k.plural, std::move(out)}});
  }
  return std::nullopt;
}

}  // namespace vigil::admin
