#include "admin/octavia/quota_writes.h"

#include <fmt/format.h>

#include <boost/json/serialize.hpp>

#include "admin/octavia/object_store.h"
#include "admin/octavia/quotas.h"

namespace vigil::admin {

std::optional<Response> route_quota_write(const Request& request, const Target& target,
                                          const RouteContext& ctx) {
  const auto& s = target.segments;  // v2 lbaas quotas {project_id}
  const bool put = request.method == "PUT";
  if (s.size() != 4 || s[1] != "lbaas" || s[2] != "quotas" ||
      (!put && request.method != "DELETE")) {
    return std::nullopt;
  }
  if (ctx.store == nullptr) return fault(405, "Method not allowed: vigil keeps no API objects");
  // The quotas live in this node's state file; etcd's layout has no place for them yet, and a
  // quota kept by one node of a fleet would hold on that node only.
  if (ctx.shared != nullptr) {
    return fault(501,
                 "Quotas are not supported with admin.store type etcd: every project's are "
                 "unlimited (-1)");
  }
  const std::string& project = s[3];
  const ApiState::Quotas& all = ctx.store->state().quotas;
  const auto it = all.find(project);
  if (!put) {
    // As Octavia's quota repository: resetting what was never set is a 404.
    if (it == all.end()) return fault(404, fmt::format("Quotas {} not found.", project));
    if (auto saved = ctx.store->set_quota(project, std::nullopt); !saved) {
      return fault(500, saved.error().message);
    }
    Response r;
    r.status = 202;
    return r;
  }
  auto next = updated_quota(request.body, it != all.end() ? it->second : ApiQuota{});
  if (!next) return fault(next.error().status, next.error().message);
  if (auto saved = ctx.store->set_quota(project, *next); !saved) {
    return fault(500, saved.error().message);
  }
  Response r;
  r.status = 202;  // Octavia's status for a quota update
  r.body = boost::json::serialize(boost::json::object{{"quota", quota_json(*next)}});
  return r;
}

}  // namespace vigil::admin
