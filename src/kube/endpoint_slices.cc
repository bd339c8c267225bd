#include "kube/endpoint_slices.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>
#include <charconv>

#include "net/address.h"

namespace vigil::kube {
namespace json = boost::json;
namespace {

// A bound on what one slice may list: the API's own limit is 1,000 endpoints per slice.
constexpr size_t kMaxEndpoints = 1000;

const json::object* object_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->as_object() : nullptr;
}

std::string string_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

// The number of the port `want` names among the slice's ports; 0 when it has none such.
Result<uint16_t> port_of(const json::object& slice, std::string_view want) {
  const json::value* ports = slice.if_contains("ports");
  if (ports == nullptr || ports->is_null()) return 0;
  if (!ports->is_array()) return fail("\"ports\" is not a list");
  int number_wanted = 0;
  const bool digits =
      std::from_chars(want.data(), want.data() + want.size(), number_wanted).ec == std::errc{};
  for (const json::value& p : ports->as_array()) {
    if (!p.is_object()) return fail("a port is not an object");
    const json::object& port = p.as_object();
    const json::value* number = port.if_contains("port");
    if (number == nullptr || !number->is_int64() || number->as_int64() < 1 ||
        number->as_int64() > 65535) {
      continue;  // a port without a number (allowed: "all ports") gives vigil nothing to dial
    }
    const bool match =
        digits ? number->as_int64() == number_wanted : string_at(port, "name") == want;
    if (match) return static_cast<uint16_t>(number->as_int64());
  }
  return 0;
}

Result<std::pair<std::string, SliceEndpoints>> read_slice(const json::value& v,
                                                          std::string_view want) {
  if (!v.is_object()) return fail("an EndpointSlice is not an object");
  const json::object& slice = v.as_object();
  const json::object* meta = object_at(slice, "metadata");
  const std::string name = meta ? string_at(*meta, "name") : "";
  if (name.empty()) return fail("an EndpointSlice has no metadata.name");
  const std::string type = string_at(slice, "addressType");
  SliceEndpoints out;
  if (type != "IPv4" && type != "IPv6") return std::pair{name, out};  // FQDN slices: not members
  auto port = port_of(slice, want);
  if (!port) return fail(fmt::format("EndpointSlice {}: {}", name, port.error().message));
  if (*port == 0) return std::pair{name, out};
  const json::value* endpoints = slice.if_contains("endpoints");
  if (endpoints == nullptr || endpoints->is_null()) return std::pair{name, out};
  if (!endpoints->is_array())
    return fail(fmt::format("EndpointSlice {}: \"endpoints\" is not a list", name));
  if (endpoints->as_array().size() > kMaxEndpoints) {
    return fail(fmt::format("EndpointSlice {} lists {} endpoints, more than the API's {}", name,
                            endpoints->as_array().size(), kMaxEndpoints));
  }
  for (const json::value& e : endpoints->as_array()) {
    if (!e.is_object())
      return fail(fmt::format("EndpointSlice {}: an endpoint is not an object", name));
    bool ready = true;
    if (const json::object* conditions = object_at(e.as_object(), "conditions")) {
      if (const json::value* r = conditions->if_contains("ready"); r && r->is_bool()) {
        ready = r->as_bool();
      }
    }
    const json::value* addresses = e.as_object().if_contains("addresses");
    if (addresses == nullptr || !addresses->is_array()) {
      return fail(fmt::format("EndpointSlice {}: an endpoint has no addresses", name));
    }
    // The API says consumers take the first address (the others are the same endpoint's).
    if (addresses->as_array().empty() || !addresses->as_array()[0].is_string()) continue;
    const std::string address(addresses->as_array()[0].as_string());
    auto ip = net::SocketAddress::from_ip(address, *port);
    if (!ip || address.find('%') != std::string::npos ||
        (ip->family() == AF_INET6) != (type == "IPv6")) {
      return fail(
          fmt::format("EndpointSlice {}: \"{}\" is not an {} address", name, address, type));
    }
    out.push_back({.address = address, .port = *port, .ready = ready});
  }
  return std::pair{name, std::move(out)};
}

Result<json::value> parse(std::string_view text, std::string_view what) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return fail(fmt::format("{} is not JSON: {}", what, ec.message()));
  if (!v.is_object()) return fail(fmt::format("{} is not a JSON object", what));
  return v;
}

std::string encoded(std::string_view s) {
  return boost::urls::encode(s, boost::urls::unreserved_chars);
}

}  // namespace

Result<SliceList> parse_slice_list(std::string_view text, std::string_view port) {
  auto doc = parse(text, "the EndpointSlice list");
  if (!doc) return std::unexpected(doc.error());
  const json::object& list = doc->as_object();
  if (string_at(list, "kind") != "EndpointSliceList") {
    return fail(
        fmt::format("the answer is a \"{}\", not an EndpointSliceList", string_at(list, "kind")));
  }
  SliceList out;
  if (const json::object* meta = object_at(list, "metadata")) {
    out.resource_version = string_at(*meta, "resourceVersion");
  }
  const json::value* items = list.if_contains("items");
  if (items != nullptr && !items->is_null()) {
    if (!items->is_array()) return fail("the EndpointSlice list's items are not a list");
    for (const json::value& item : items->as_array()) {
      auto slice = read_slice(item, port);
      if (!slice) return std::unexpected(slice.error());
      out.slices[slice->first] = std::move(slice->second);
    }
  }
  return out;
}

Result<WatchEvent> parse_watch_event(std::string_view line, std::string_view port) {
  auto doc = parse(line, "a watch event");
  if (!doc) return std::unexpected(doc.error());
  const json::object& event = doc->as_object();
  const std::string type = string_at(event, "type");
  const json::value* object = event.if_contains("object");
  if (object == nullptr || !object->is_object()) return fail("a watch event has no object");
  WatchEvent out;
  const json::object* meta = object_at(object->as_object(), "metadata");
  if (meta) out.resource_version = string_at(*meta, "resourceVersion");
  if (type == "ERROR") {
    out.type = WatchEvent::Type::kError;
    const json::value* code = object->as_object().if_contains("code");
    out.code = code != nullptr && code->is_int64() ? static_cast<int>(code->as_int64()) : 0;
    out.message = string_at(object->as_object(), "message");
    out.resource_version.clear();
    return out;
  }
  if (type == "BOOKMARK") {
    out.type = WatchEvent::Type::kBookmark;
    return out;
  }
  if (type == "ADDED") {
    out.type = WatchEvent::Type::kAdded;
  } else if (type == "MODIFIED") {
    out.type = WatchEvent::Type::kModified;
  } else if (type == "DELETED") {
    out.type = WatchEvent::Type::kDeleted;
  } else {
    return fail(fmt::format("a watch event of unknown type \"{}\"", type));
  }
  auto slice = read_slice(*object, port);
  if (!slice) return std::unexpected(slice.error());
  out.name = std::move(slice->first);
  out.endpoints = std::move(slice->second);
  return out;
}

void apply_event(std::map<std::string, SliceEndpoints>& slices, const WatchEvent& event) {
  switch (event.type) {
    case WatchEvent::Type::kAdded:
    case WatchEvent::Type::kModified:
      slices[event.name] = event.endpoints;
      return;
    case WatchEvent::Type::kDeleted:
      slices.erase(event.name);
      return;
    case WatchEvent::Type::kBookmark:
    case WatchEvent::Type::kError:
      return;
  }
}

std::vector<Endpoint> ready_endpoints(const std::map<std::string, SliceEndpoints>& slices) {
  std::vector<Endpoint> out;
  for (const auto& [name, endpoints] : slices) {
    for (const Endpoint& e : endpoints) {
      if (e.ready) out.push_back(e);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end(),
                        [](const Endpoint& a, const Endpoint& b) {
                          return a.address == b.address && a.port == b.port;
                        }),
            out.end());
  return out;
}

std::string list_target(std::string_view ns, std::string_view service) {
  return fmt::format("/apis/discovery.k8s.io/v1/namespaces/{}/endpointslices?labelSelector={}",
                     encoded(ns), encoded(fmt::format("kubernetes.io/service-name={}", service)));
}

std::string watch_target(std::string_view ns, std::string_view service,
                         std::string_view resource_version, int timeout_seconds) {
  return fmt::format("{}&watch=true&allowWatchBookmarks=true&resourceVersion={}&timeoutSeconds={}",
                     list_target(ns, service), encoded(resource_version), timeout_seconds);
}

}  // namespace vigil::kube
