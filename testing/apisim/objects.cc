#include "testing/apisim/objects.h"

#include <fmt/format.h>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <cctype>
#include <chrono>
#include <ctime>

namespace vigil::apisim {
namespace {

namespace json = boost::json;

constexpr std::string_view kCreated = "2024-01-01T00:00:00Z";
constexpr std::string_view kKubeVersion = "v1.29.0";
constexpr std::string_view kDiscoveryV1 = "discovery.k8s.io/v1";

std::string now_rfc3339() {
  const std::time_t secs = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

// FNV-1a: a stable uid per node name, so repeated answers and restarts agree.
std::uint64_t fnv1a(std::string_view text, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string uid_for(std::string_view name) {
  const std::uint64_t a = fnv1a(name, 14695981039346656037ULL);
  const std::uint64_t b = fnv1a(name, a);
  return fmt::format("{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}", a >> 32, (a >> 16) & 0xffff,
                     a & 0xfff, b >> 52, b & 0xffffffffffffULL);
}

// 10.0.0.11 for master-01, 10.0.0.12 for master-02, ...; other names get a stable address.
std::string internal_ip(std::string_view name) {
  unsigned last = 10 + static_cast<unsigned>(fnv1a(name, 14695981039346656037ULL) % 200);
  if (name.size() >= 2 && name.substr(0, name.size() - 2).ends_with('-')) {
    const std::string_view digits = name.substr(name.size() - 2);
    if (std::isdigit(static_cast<unsigned char>(digits[0])) &&
        std::isdigit(static_cast<unsigned char>(digits[1]))) {
      last = 10 + static_cast<unsigned>((digits[0] - '0') * 10 + (digits[1] - '0'));
    }
  }
  return fmt::format("10.0.0.{}", last % 250);
}

json::object condition(std::string_view type, std::string_view status, std::string_view reason,
                       std::string_view message, const std::string& heartbeat) {
  return {{"type", type},
          {"status", status},
          {"lastHeartbeatTime", heartbeat},
          {"lastTransitionTime", kCreated},
          {"reason", reason},
          {"message", message}};
}

}  // namespace

json::value status_object(int code, std::string_view reason, std::string_view message) {
  return json::object{{"kind", "Status"},   {"apiVersion", "v1"}, {"status", "Failure"},
                      {"message", message}, {"reason", reason},   {"code", code}};
}

json::value node_object(std::string_view name, std::uint64_t resource_version,
                        bool with_type_meta) {
  const std::string heartbeat = now_rfc3339();
  json::object node;
  if (with_type_meta) {
    node["kind"] = "Node";
    node["apiVersion"] = "v1";
  }
  node["metadata"] =
      json::object{{"name", name},
                   {"uid", uid_for(name)},
                   {"resourceVersion", std::to_string(resource_version)},
                   {"creationTimestamp", kCreated},
                   {"labels", json::object{{"kubernetes.io/arch", "amd64"},
                                           {"kubernetes.io/hostname", name},
                                           {"kubernetes.io/os", "linux"},
                                           {"node-role.kubernetes.io/control-plane", ""},
                                           {"node-role.kubernetes.io/master", ""}}}};
  node["spec"] =
      json::object{{"taints", json::array{json::object{{"key", "node-role.kubernetes.io/master"},
                                                       {"effect", "NoSchedule"}}}}};
  node["status"] = json::object{
      {"conditions", json::array{condition("MemoryPressure", "False", "KubeletHasSufficientMemory",
                                           "kubelet has sufficient memory available", heartbeat),
                                 condition("DiskPressure", "False", "KubeletHasNoDiskPressure",
                                           "kubelet has no disk pressure", heartbeat),
                                 condition("PIDPressure", "False", "KubeletHasSufficientPID",
                                           "kubelet has sufficient PID available", heartbeat),
                                 condition("Ready", "True", "KubeletReady",
                                           "kubelet is posting ready status", heartbeat)}},
      {"addresses",
       json::array{json::object{{"type", "InternalIP"}, {"address", internal_ip(name)}},
                   json::object{{"type", "Hostname"}, {"address", name}}}},
      {"nodeInfo", json::object{{"architecture", "amd64"},
                                {"containerRuntimeVersion", "cri-o://1.29.0"},
                                {"kernelVersion", "6.1.0-18-amd64"},
                                {"kubeProxyVersion", kKubeVersion},
                                {"kubeletVersion", kKubeVersion},
                                {"operatingSystem", "linux"},
                                {"osImage", "Debian GNU/Linux 12 (bookworm)"}}}};
  return node;
}

json::value node_list(const std::vector<std::string>& names, std::uint64_t resource_version) {
  json::array items;
  for (const std::string& name : names) {
    items.push_back(node_object(name, resource_version, /*with_type_meta=*/false));
  }
  return json::object{
      {"kind", "NodeList"},
      {"apiVersion", "v1"},
      {"metadata", json::object{{"resourceVersion", std::to_string(resource_version)}}},
      {"items", std::move(items)}};
}

std::string watch_event(std::string_view type, std::string_view name,
                        std::uint64_t resource_version) {
  json::object event{{"type", type}, {"object", node_object(name, resource_version)}};
  return json::serialize(event) + "\n";
}

json::value endpoint_slice_object(const Slice& slice, bool with_type_meta) {
  json::object object;
  if (with_type_meta) {
    object["kind"] = "EndpointSlice";
    object["apiVersion"] = kDiscoveryV1;
  }
  object["metadata"] =
      json::object{{"name", slice.name},
                   {"namespace", kServiceNamespace},
                   {"uid", uid_for(fmt::format("endpointslice/{}", slice.name))},
                   {"resourceVersion", std::to_string(slice.resource_version)},
                   {"creationTimestamp", kCreated},
                   {"labels", json::object{{"kubernetes.io/service-name", kServiceName}}}};
  object["addressType"] = to_string(slice.address_type);
  // Go encodes the reconciler's nil lists of an empty slice as null, not [].
  json::value endpoints = nullptr;
  json::value ports = nullptr;
  if (!slice.endpoints.empty()) {
    json::array list;
    for (const Endpoint& e : slice.endpoints) {
      list.push_back(json::object{{"addresses", json::array{json::value(e.ip)}},
                                  {"conditions", json::object{{"ready", e.ready}}}});
    }
    endpoints = std::move(list);
    ports = json::array{json::object{
        {"name", "https"}, {"port", slice.endpoints.front().port}, {"protocol", "TCP"}}};
  }
  object["endpoints"] = std::move(endpoints);
  object["ports"] = std::move(ports);
  return object;
}

json::value endpoint_slice_list(const std::vector<Slice>& slices, std::uint64_t resource_version) {
  json::array items;
  for (const Slice& slice : slices) {
    items.push_back(endpoint_slice_object(slice, /*with_type_meta=*/false));
  }
  return json::object{
      {"kind", "EndpointSliceList"},
      {"apiVersion", kDiscoveryV1},
      {"metadata", json::object{{"resourceVersion", std::to_string(resource_version)}}},
      {"items", std::move(items)}};
}

std::string endpoint_slice_event(const SliceEvent& event) {
  json::object line{{"type", to_string(event.type)},
                    {"object", endpoint_slice_object(event.slice)}};
  return json::serialize(line) + "\n";
}

std::string endpoint_slice_bookmark(std::uint64_t resource_version) {
  json::object object{
      {"kind", "EndpointSlice"},
      {"apiVersion", kDiscoveryV1},
      {"metadata", json::object{{"resourceVersion", std::to_string(resource_version)}}}};
  return json::serialize(json::object{{"type", "BOOKMARK"}, {"object", std::move(object)}}) + "\n";
}

std::string expired_event(std::uint64_t requested, std::uint64_t oldest) {
  // The watch cache's wording: the second number is the oldest version it can still serve from.
  json::value status = status_object(
      410, "Expired", fmt::format("too old resource version: {} ({})", requested, oldest));
  status.as_object()["metadata"] = json::object{};
  return json::serialize(json::object{{"type", "ERROR"}, {"object", std::move(status)}}) + "\n";
}

json::value version_object() {
  return json::object{{"major", "1"},
                      {"minor", "29"},
                      {"gitVersion", kKubeVersion},
                      {"gitCommit", "3f7a50f38688eb332e2a1b013678c6435d539ae6"},
                      {"gitTreeState", "clean"},
                      {"buildDate", kCreated},
                      {"goVersion", "go1.21.5"},
                      {"compiler", "gc"},
                      {"platform", "linux/amd64"}};
}

json::value api_versions(std::string_view server_address) {
  return json::object{
      {"kind", "APIVersions"},
      {"versions", json::array{"v1"}},
      {"serverAddressByClientCIDRs",
       json::array{json::object{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}};
}

json::value api_group_list() {
  json::object version{{"groupVersion", kDiscoveryV1}, {"version", "v1"}};
  json::object discovery{{"name", "discovery.k8s.io"},
                         {"versions", json::array{version}},
                         {"preferredVersion", version}};
  return json::object{{"kind", "APIGroupList"},
                      {"apiVersion", "v1"},
                      {"groups", json::array{std::move(discovery)}}};
}

// Enough discovery for `kubectl get nodes` as well as `kubectl get --raw`.
json::value core_v1_resources() {
  json::object nodes{{"name", "nodes"},
                     {"singularName", "node"},
                     {"namespaced", false},
                     {"kind", "Node"},
                     {"verbs", json::array{"get", "list", "watch"}},
                     {"shortNames", json::array{"no"}}};
  return json::object{{"kind", "APIResourceList"},
                      {"groupVersion", "v1"},
                      {"resources", json::array{std::move(nodes)}}};
}

// What kubectl needs to find `endpointslices` (and `endpointslice`, `EndpointSlice`).
json::value discovery_v1_resources() {
  json::object slices{{"name", "endpointslices"},
                      {"singularName", "endpointslice"},
                      {"namespaced", true},
                      {"kind", "EndpointSlice"},
                      {"verbs", json::array{"get", "list", "watch"}}};
  return json::object{{"kind", "APIResourceList"},
                      {"apiVersion", "v1"},
                      {"groupVersion", kDiscoveryV1},
                      {"resources", json::array{std::move(slices)}}};
}

}  // namespace vigil::apisim
