#include "admin/octavia/collections.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "admin/octavia/json_filter.h"
#include "admin/octavia/json_page.h"
#include "admin/octavia/quotas.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

Response json_ok(const json::object& body) {
  Response r;
  r.body = json::serialize(body);
  return r;
}

}  // namespace

Response page_fault(const PageError& error) {
  return error.framework ? framework_fault(400, "Bad Request", error.message)
                         : fault(400, error.message);
}

namespace {

// An empty list, after the checks Octavia makes of its query (filters, limit, sort, marker: a
// marker names no object here, Octavia's 400). Octavia spells some keys its own way:
// `availability_zones`, `flavorprofile_links`.
Response empty_list(const Target& t, std::string_view collection, std::string_view key,
                    std::string_view links_key) {
  auto filters = parse_filters(collection, t);
  if (!filters) return fault(400, filters.error());
  auto checked = page(collection, {}, {}, t);
  if (!checked) return page_fault(checked.error());
  return json_ok(json::object{{key, json::array()}, {links_key, json::array()}});
}

struct Empty {
  std::string_view collection;
  std::string_view key;
  std::string_view links_key;
  std::string_view kind;  // in "X not found."
};

constexpr std::array kEmpty{
    Empty{"flavors", "flavors", "flavors_links", "Flavor"},
    Empty{"flavorprofiles", "flavorprofiles", "flavorprofile_links", "Flavor Profile"},
    Empty{"availabilityzones", "availability_zones", "availability_zones_links",
          "Availability Zone"},
    Empty{"availabilityzoneprofiles", "availability_zone_profiles",
          "availability_zone_profile_links", "Availability Zone Profile"},
    Empty{"l7policies", "l7policies", "l7policies_links", "L7 Policy"},
    Empty{"amphorae", "amphorae", "amphorae_links", "Amphora"},
};

Response read_only(std::string_view why) {
  Response r = fault(405, fmt::format("Method not allowed: {}", why));
  r.headers.emplace_back("Allow", "GET");
  return r;
}

Response providers(const std::vector<std::string>& s, const Target& t) {
  if (s.size() == 1) {
    json::object vigil{{"name", "vigil"},
                       {"description", "vigil: a health-checking layer-4 load balancer"}};
    const std::vector<std::string> fields = requested_fields(t);
    if (!fields.empty()) vigil = only_fields(vigil, fields);
    return json_ok(json::object{{"providers", json::array{std::move(vigil)}}});
  }
  if (s[1] != "vigil") return fault(400, fmt::format("Provider '{}' is not enabled.", s[1]));
  // vigil takes no flavor or availability zone options.
  if (s.size() == 3 && s[2] == "flavor_capabilities") {
    return json_ok(json::object{{"flavor_capabilities", json::array()}});
  }
  if (s.size() == 3 && s[2] == "availability_zone_capabilities") {
    return json_ok(json::object{{"availability_zone_capabilities", json::array()}});
  }
  return fault(404, "Not found: unknown provider sub-resource");
}

// The quotas PUT gave (quotas.h); a project without any has Octavia's defaults, -1 (unlimited).
// The list holds the projects someone gave quotas to, as Octavia's quota table.
Response quotas(const std::vector<std::string>& s, const Target& t, const ApiState* state) {
  static const ApiState::Quotas kNone;
  const ApiState::Quotas& all = state != nullptr ? state->quotas : kNone;
  if (s.size() == 1) {
    auto filters = parse_filters("quotas", t);
    if (!filters) return fault(400, filters.error());
    std::vector<json::object> objects;
    std::vector<bool> matches;
    for (const auto& [project, q] : all) {
      json::object o = quota_json(q);
      o["project_id"] = project;
      matches.push_back(filters->matches(o));
      objects.push_back(std::move(o));
    }
    auto body = page("quotas", std::move(objects), matches, t);
    if (!body) return page_fault(body.error());
    return json_ok(*body);
  }
  if (s.size() > 3 || (s.size() == 3 && s[2] != "default")) {
    return fault(404, "Not found: unknown quota sub-resource");
  }
  const auto it = all.find(s[1]);
  const bool stored = s.size() == 2 && it != all.end();
  return json_ok(json::object{{"quota", quota_json(stored ? it->second : ApiQuota{})}});
}

// Octavia checks the body and the listener, then asks the provider, which answers 501.
Response create_l7policy(std::string_view body, const Catalog& catalog) {
  boost::system::error_code ec;
  const json::value v = json::parse(body, ec);
  if (ec || !v.is_object()) return fault(400, "Request is not in valid JSON format");
  const json::value* policy = v.as_object().if_contains("l7policy");
  if (policy == nullptr || !policy->is_object()) {
    return fault(400, "Missing argument: \"l7policy_\"");
  }
  const json::value* listener = policy->as_object().if_contains("listener_id");
  if (listener == nullptr || !listener->is_string()) {
    return fault(400,
                 "Invalid input for field/attribute listener_id. Value: 'None'. Mandatory field "
                 "missing.");
  }
  const std::string_view id = listener->as_string();
  if (!catalog.listener(id)) return fault(404, fmt::format("Listener {} not found.", id));
  return fault(501,
               "Provider 'vigil' does not support a requested action: This provider does not "
               "support creating l7policies.");
}

}  // namespace

Response octavia_versions(const Target& target) {
  // (minor version, date): Octavia 11's root_controller.py.
  static constexpr std::array<std::pair<int, std::string_view>, 27> kVersions{{
      {0, "2016-12-11T00:00:00Z"},  {1, "2018-04-20T00:00:00Z"},  {2, "2018-07-31T00:00:00Z"},
      {3, "2018-12-18T00:00:00Z"},  {4, "2018-12-19T00:00:00Z"},  {5, "2019-01-21T00:00:00Z"},
      {6, "2019-01-25T00:00:00Z"},  {7, "2018-01-25T12:00:00Z"},  {8, "2019-02-12T00:00:00Z"},
      {9, "2019-03-04T00:00:00Z"},  {10, "2019-03-05T00:00:00Z"}, {11, "2019-06-24T00:00:00Z"},
      {12, "2019-09-11T00:00:00Z"}, {13, "2019-09-13T00:00:00Z"}, {14, "2019-11-10T00:00:00Z"},
      {15, "2020-03-10T00:00:00Z"}, {16, "2020-03-15T00:00:00Z"}, {17, "2020-04-29T00:00:00Z"},
      {18, "2020-04-29T01:00:00Z"}, {19, "2020-05-12T00:00:00Z"}, {20, "2020-08-02T00:00:00Z"},
      {21, "2020-09-03T00:00:00Z"}, {22, "2020-09-04T00:00:00Z"}, {23, "2020-09-07T00:00:00Z"},
      {24, "2020-10-15T00:00:00Z"}, {25, "2021-10-02T00:00:00Z"}, {26, "2022-08-29T00:00:00Z"},
  }};
  const std::string href = target.link_base + "/v2";
  json::array versions;
  for (const auto& [minor, updated] : kVersions) {
    versions.push_back(json::object{
        {"id", fmt::format("v2.{}", minor)},
        {"status", minor == 26 ? "CURRENT" : "SUPPORTED"},
        {"updated", updated},
        {"links", json::array{json::object{{"href", href}, {"rel", "self"}}}},
    });
  }
  return json_ok(json::object{{"versions", std::move(versions)}});
}

bool is_octavia_collection(std::string_view parent, std::string_view name) {
  if (parent == "octavia") return name == "amphorae";
  if (parent != "lbaas" || name == "amphorae") return false;
  if (name == "providers" || name == "quotas") return true;
  return std::ranges::any_of(kEmpty, [&](const Empty& e) { return e.collection == name; });
}

std::optional<Response> route_octavia_collection(std::string_view method, std::string_view parent,
                                                 const std::vector<std::string>& s,
                                                 const Target& target, std::string_view body,
                                                 const Catalog& catalog) {
  if (s.empty() || !is_octavia_collection(parent, s[0])) return std::nullopt;
  const bool get = method == "GET";
  if (s[0] == "providers") {
    return get ? providers(s, target) : read_only("vigil is the only provider");
  }
  if (s[0] == "quotas") {
    // PUT and DELETE of one project's are writes (quota_writes.h), which come here only when
    // the path or method is no quota write.
    return get ? quotas(s, target, catalog.state())
               : read_only("only one project's quotas are set (PUT) or reset (DELETE)");
  }
  for (const Empty& e : kEmpty) {
    if (s[0] != e.collection) continue;
    if (e.collection == "l7policies" && method == "POST" && s.size() == 1) {
      return create_l7policy(body, catalog);
    }
    // Any method on one of them: there is none to find.
    if (s.size() > 1) return fault(404, fmt::format("{} {} not found.", e.kind, s[1]));
    if (!get) return read_only(fmt::format("vigil has no {}", e.collection));
    return empty_list(target, e.collection, e.key, e.links_key);
  }
  return std::nullopt;
}

}  // namespace vigil::admin
