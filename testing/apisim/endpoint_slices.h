// EndpointSlices of default/kubernetes as the simulator publishes them: the endpoint list, the
// slices a kube-apiserver makes of it, and a bounded history of their changes for watches. Plain
// values and pure functions; the server keeps one EndpointSlices in SimState, on its one thread.
#pragma once

#include <cstdint>
#include <deque>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace vigil::apisim {

enum class AddressType { kIPv4, kIPv6 };
std::string_view to_string(AddressType type);  // "IPv4", "IPv6": the API's spelling

struct Endpoint {
  std::string ip;  // a literal without brackets
  std::uint16_t port = 0;
  bool ready = true;
  AddressType type = AddressType::kIPv4;
  bool operator==(const Endpoint&) const = default;
};

// "10.0.0.11:6443,[2001:db8::1]:6443!notready": IP literals only, one port for all (the slices
// carry one port list for every endpoint). Empty text is an empty list.
Result<std::vector<Endpoint>> parse_endpoints(std::string_view text);
// The same syntax back, for /sim/state.
std::string format_endpoints(const std::vector<Endpoint>& endpoints);

constexpr std::string_view kServiceName = "kubernetes";
constexpr std::string_view kServiceNamespace = "default";

struct Slice {
  std::string name;
  AddressType address_type = AddressType::kIPv4;
  std::vector<Endpoint> endpoints;     // all of address_type
  std::uint64_t resource_version = 0;  // of its last change
  // Whether both describe the same object state, resourceVersion aside.
  bool same_content(const Slice& other) const {
    return name == other.name && address_type == other.address_type && endpoints == other.endpoints;
  }
};

// One slice per address family in use; IPv4's is named "kubernetes", as the apiserver's own
// reconciler names its one slice. IPv6's is "kubernetes" too when there is no IPv4 address (the
// reconciler's IPv6-only cluster), else "kubernetes-ipv6". No endpoints: one empty IPv4 slice,
// as the reconciler leaves it. Resource versions are left 0.
std::vector<Slice> slices_for(const std::vector<Endpoint>& endpoints);

enum class EventType { kAdded, kModified, kDeleted };
std::string_view to_string(EventType type);  // "ADDED", ...

struct SliceEvent {
  EventType type = EventType::kAdded;
  Slice slice;  // after the change; for DELETED the last state, with the deletion's version
};

// The events that turn `before` into `after`, in order: a slice whose address type changes is
// DELETED and ADDED again (addressType is immutable, so the reconciler re-creates it).
std::vector<SliceEvent> slice_changes(const std::vector<Slice>& before,
                                      const std::vector<Slice>& after);

// The current slices plus the events after history_start(), at most kHistoryLimit of them (like
// the apiserver's watch cache, which also forgets the oldest first).
class EndpointSlices {
 public:
  static constexpr std::size_t kHistoryLimit = 100;

  EndpointSlices() = default;
  // Slices for `endpoints`, all at resource_version, which is also where the history starts.
  EndpointSlices(std::vector<Endpoint> endpoints, std::uint64_t resource_version);

  const std::vector<Endpoint>& endpoints() const { return endpoints_; }
  const std::vector<Slice>& slices() const { return slices_; }
  std::uint64_t history_start() const { return history_start_; }

  // Replaces the endpoints. Each event takes the next value of `resource_version` (the server's
  // one counter), as each write of the reconciler gets its own etcd revision. Returns the events
  // (none when nothing changed).
  std::vector<SliceEvent> set(std::vector<Endpoint> endpoints, std::uint64_t& resource_version);
  // Forgets the history: a watch from before resource_version is answered 410 Expired.
  void compact(std::uint64_t resource_version);
  // The events after resourceVersion `from`, for a watch; or, when the history no longer reaches
  // back that far, the unexpected history_start() for the 410's message.
  std::expected<std::vector<SliceEvent>, std::uint64_t> since(std::uint64_t from) const;

 private:
  std::vector<Endpoint> endpoints_;
  std::vector<Slice> slices_;
  std::deque<SliceEvent> history_;
  std::uint64_t history_start_ = 0;  // every event after this version is in history_
};

}  // namespace vigil::apisim
