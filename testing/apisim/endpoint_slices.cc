#include "testing/apisim/endpoint_slices.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "net/address.h"

namespace vigil::apisim {
namespace {

constexpr std::string_view kNotReady = "!notready";

Result<Endpoint> parse_endpoint(std::string_view text) {
  Endpoint endpoint;
  if (text.ends_with(kNotReady)) {
    endpoint.ready = false;
    text.remove_suffix(kNotReady.size());
  }
  auto host_port = net::split_host_port(text);
  if (!host_port) return fail(fmt::format("\"{}\": {}", text, host_port.error().message));
  auto address = net::SocketAddress::from_ip(host_port->host, host_port->port);
  if (!address || host_port->host.empty()) {
    return fail(fmt::format("\"{}\": want an IP literal and a port, e.g. 10.0.0.11:6443", text));
  }
  if (host_port->port == 0) return fail(fmt::format("\"{}\": port 0", text));
  endpoint.ip = address->ip_string();
  endpoint.port = host_port->port;
  endpoint.type = address->family() == AF_INET6 ? AddressType::kIPv6 : AddressType::kIPv4;
  return endpoint;
}

Slice slice_of(std::string name, AddressType type, const std::vector<Endpoint>& endpoints) {
  Slice slice{.name = std::move(name), .address_type = type};
  std::ranges::copy_if(endpoints, std::back_inserter(slice.endpoints),
                       [type](const Endpoint& e) { return e.type == type; });
  return slice;
}

const Slice* find_named(const std::vector<Slice>& slices, std::string_view name) {
  auto it = std::ranges::find(slices, name, &Slice::name);
  return it == slices.end() ? nullptr : &*it;
}

}  // namespace

std::string_view to_string(AddressType type) {
  return type == AddressType::kIPv6 ? "IPv6" : "IPv4";
}

std::string_view to_string(EventType type) {
  switch (type) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
  }
  return "ADDED";
}

Result<std::vector<Endpoint>> parse_endpoints(std::string_view text) {
  std::vector<Endpoint> endpoints;
  while (!text.empty()) {
    const auto comma = text.find(',');
    auto endpoint = parse_endpoint(text.substr(0, comma));
    if (!endpoint) return std::unexpected(endpoint.error());
    if (!endpoints.empty() && endpoint->port != endpoints.front().port) {
      return fail("every endpoint needs the same port: the slices have one port list for all");
    }
    if (std::ranges::find(endpoints, endpoint->ip, &Endpoint::ip) != endpoints.end()) {
      return fail(fmt::format("{} is listed twice", endpoint->ip));
    }
    endpoints.push_back(std::move(*endpoint));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
    if (text.empty()) return fail("a trailing comma");
  }
  return endpoints;
}

std::string format_endpoints(const std::vector<Endpoint>& endpoints) {
  std::string text;
  for (const Endpoint& e : endpoints) {
    if (!text.empty()) text += ',';
    text += e.type == AddressType::kIPv6 ? fmt::format("[{}]:{}", e.ip, e.port)
                                         : fmt::format("{}:{}", e.ip, e.port);
    if (!e.ready) text += kNotReady;
  }
  return text;
}

std::vector<Slice> slices_for(const std::vector<Endpoint>& endpoints) {
  const auto has = [&](AddressType type) {
    return std::ranges::any_of(endpoints, [type](const Endpoint& e) { return e.type == type; });
  };
  const bool v4 = has(AddressType::kIPv4);
  const bool v6 = has(AddressType::kIPv6);
  std::vector<Slice> slices;
  if (v4 || !v6)
    slices.push_back(slice_of(std::string(kServiceName), AddressType::kIPv4, endpoints));
  if (v6) {
    std::string name = v4 ? fmt::format("{}-ipv6", kServiceName) : std::string(kServiceName);
    slices.push_back(slice_of(std::move(name), AddressType::kIPv6, endpoints));
  }
  return slices;
}

std::vector<SliceEvent> slice_changes(const std::vector<Slice>& before,
                                      const std::vector<Slice>& after) {
  std::vector<SliceEvent> events;
  for (const Slice& old : before) {
    const Slice* now = find_named(after, old.name);
    if (now == nullptr || now->address_type != old.address_type) {
      events.push_back({EventType::kDeleted, old});
    }
  }
  for (const Slice& now : after) {
    const Slice* old = find_named(before, now.name);
    if (old == nullptr || old->address_type != now.address_type) {
      events.push_back({EventType::kAdded, now});
    } else if (!old->same_content(now)) {
      events.push_back({EventType::kModified, now});
    }
  }
  return events;
}

EndpointSlices::EndpointSlices(std::vector<Endpoint> endpoints, std::uint64_t resource_version)
    : endpoints_(std::move(endpoints)),
      slices_(slices_for(endpoints_)),
      history_start_(resource_version) {
  for (Slice& slice : slices_) slice.resource_version = resource_version;
}

std::vector<SliceEvent> EndpointSlices::set(std::vector<Endpoint> endpoints,
                                            std::uint64_t& resource_version) {
  std::vector<Slice> next = slices_for(endpoints);
  std::vector<SliceEvent> events = slice_changes(slices_, next);
  for (Slice& slice : next) {  // unchanged slices keep their version
    if (const Slice* old = find_named(slices_, slice.name); old && old->same_content(slice)) {
      slice.resource_version = old->resource_version;
    }
  }
  for (SliceEvent& event : events) {
    event.slice.resource_version = ++resource_version;
    if (event.type != EventType::kDeleted) {
      std::ranges::find(next, event.slice.name, &Slice::name)->resource_version = resource_version;
    }
    history_.push_back(event);
  }
  while (history_.size() > kHistoryLimit) {
    history_start_ = history_.front().slice.resource_version;
    history_.pop_front();
  }
  endpoints_ = std::move(endpoints);
  slices_ = std::move(next);
  return events;
}

void EndpointSlices::compact(std::uint64_t resource_version) {
  history_.clear();
  history_start_ = resource_version;
}

std::expected<std::vector<SliceEvent>, std::uint64_t> EndpointSlices::since(
    std::uint64_t from) const {
  if (from < history_start_) return std::unexpected(history_start_);
  std::vector<SliceEvent> events;
  std::ranges::copy_if(history_, std::back_inserter(events),
                       [from](const SliceEvent& e) { return e.slice.resource_version > from; });
  return events;
}

}  // namespace vigil::apisim
