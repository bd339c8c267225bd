#include "admin/octavia/quotas.h"

#include <array>

#include "admin/octavia/json_fields.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

struct Kind {
  std::string_view name;
  std::optional<int> ApiQuota::*field;
  std::string_view deprecated;  // Octavia's older name of the field; empty: none
};

constexpr std::array<Kind, 7> kKinds{{
    {"load_balancer", &ApiQuota::load_balancer, "loadbalancer"},
    {"listener", &ApiQuota::listener, ""},
    {"member", &ApiQuota::member, ""},
    {"pool", &ApiQuota::pool, ""},
    {"health_monitor", &ApiQuota::health_monitor, "healthmonitor"},
    {"l7policy", &ApiQuota::l7policy, ""},
    {"l7rule", &ApiQuota::l7rule, ""},
}};

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
