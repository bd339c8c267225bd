#include "admin/octavia/quotas.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>

#include "admin/octavia/json_fields.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

struct Kind {
  std::string_view name;
  std::optional<int> ApiQuota::*field;
  std::string_view deprecated;  // Octavia's older name of the field; empty: none
  std::string_view resource;    // Octavia's data model's name, as its 403 says it
};

// In the order Octavia checks a populated create's objects.
constexpr std::array<Kind, 7> kKinds{{
    {"load_balancer", &ApiQuota::load_balancer, "loadbalancer", "Load Balancer"},
    {"listener", &ApiQuota::listener, "", "Listener"},
    {"member", &ApiQuota::member, "", "Member"},
    {"pool", &ApiQuota::pool, "", "Pool"},
    {"health_monitor", &ApiQuota::health_monitor, "healthmonitor", "Health Monitor"},
    {"l7policy", &ApiQuota::l7policy, "", "L7 Policy"},
    {"l7rule", &ApiQuota::l7rule, "", "L7 Rule"},
}};

// How many objects of each kind (kKinds' order) `project` has in `s`.
std::array<int64_t, kKinds.size()> counts(const ApiState& s, std::string_view project) {
  std::array<int64_t, kKinds.size()> n{};
  for (const ApiLoadBalancer& lb : s.loadbalancers) {
    if (lb.project_id != project) continue;
    ++n[0];
    n[1] += static_cast<int64_t>(lb.listeners.size());
    for (const ApiPool& p : lb.pools) {
      n[2] += static_cast<int64_t>(p.members.size());
      ++n[3];
      n[4] += p.healthmonitor ? 1 : 0;
    }
  }
  return n;  // vigil has no L7 policies or rules
}

// Reads one name of a field into `q`: absent keeps it, null resets it, a number sets it.
void read_one(FieldReader& r, std::string_view key, std::optional<int>& out) {
  if (r.is_null(key)) out.reset();
  if (auto v = r.integer(key, kMinQuota, kMaxQuota)) out = static_cast<int>(*v);
}

}  // namespace

json::object quota_json(const ApiQuota& q) {
  json::object out;
  for (const Kind& k : kKinds) out[k.name] = (q.*k.field).value_or(kDefaultQuota);
  return out;
}

ApiResult<ApiQuota> updated_quota(std::string_view body, ApiQuota current) {
  auto object = request_object(body, "quota");
  if (!object) return std::unexpected(object.error());
  FieldReader r(*object, "quotas.quota");
  for (const Kind& k : kKinds) {
    // The deprecated name first, so that the current one wins when a body gives both.
    if (!k.deprecated.empty()) read_one(r, k.deprecated, current.*k.field);
    read_one(r, k.name, current.*k.field);
  }
  if (auto error = r.finish()) return std::unexpected(*error);
  return current;
}

std::optional<ApiError> quota_met(const ApiState& before, const ApiState& after) {
  for (const auto& [project, q] : after.quotas) {
    const auto was = counts(before, project);
    const auto now = counts(after, project);
    for (size_t i = 0; i < kKinds.size(); ++i) {
      const std::optional<int> limit = q.*kKinds[i].field;
      if (!limit || *limit < 0 || now[i] <= *limit || now[i] <= was[i]) continue;
      return ApiError{403, fmt::format("Quota has been met for resources: {}", kKinds[i].resource)};
    }
  }
  return std::nullopt;
}

json::object quota_to_state(const ApiQuota& q) {
  json::object out;
  for (const Kind& k : kKinds) {
    if (q.*k.field) out[k.name] = *(q.*k.field);
  }
  return out;
}

ApiResult<ApiQuota> quota_from_state(const json::object& o, std::string_view where) {
  ApiQuota q;
  FieldReader r(o, std::string(where));
  for (const Kind& k : kKinds) read_one(r, k.name, q.*k.field);
  if (auto error = r.finish()) return std::unexpected(*error);
  return q;
}

}  // namespace vigil::admin
