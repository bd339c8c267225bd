#include "admin/octavia/member_set.h"

#include <fmt/format.h>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "admin/octavia/views.h"
#include "admin/override_json.h"
#include "base/log.h"
#include "model/admin_override.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

struct MemberSet {
  std::optional<model::AdminState> state;
  std::optional<int> weight;
};

// {"member": {"weight": N, "admin_state_up": B}}: --disable is maintenance (out of rotation,
// sessions closed, still checked), --enable clears the override as `vigil member ready` does.
ApiResult<MemberSet> parse_member_set(std::string_view body, const Response& read_only) {
  boost::system::error_code ec;
  const json::value v = json::parse(body, ec);
  const json::object* top = ec ? nullptr : v.if_object();
  const json::value* member = top ? top->if_contains("member") : nullptr;
  if (member == nullptr || !member->is_object()) {
    return api_error(400, "Invalid input: the body must be {\"member\": {...}}");
  }
  MemberSet out;
  for (const auto& [key, value] : member->as_object()) {
    if (key == "weight") {
      if (!value.is_int64() || value.as_int64() < 0 || value.as_int64() > model::kMaxMemberWeight) {
        return api_error(400, fmt::format("Invalid input for field/attribute weight. Value: '{}'. "
                                          "Value should be between 0 and {}",
                                          json::serialize(value), model::kMaxMemberWeight));
      }
      out.weight = static_cast<int>(value.as_int64());
    } else if (key == "admin_state_up") {
      if (!value.is_bool()) {
        return api_error(400, "Invalid input for field/attribute admin_state_up: a boolean");
      }
      out.state = value.as_bool() ? model::AdminState::kReady : model::AdminState::kMaint;
    } else {
      // Only the runtime override is writable; a faultstring that says what is.
      json::value fs = json::parse(read_only.body, ec);
      std::string why = fs.is_object() && fs.as_object().contains("faultstring")
                            ? std::string(fs.as_object().at("faultstring").as_string())
                            : "read-only";
      return api_error(409, fmt::format("{} (only weight and admin_state_up of its members can be "
                                        "set at run time; {} cannot)",
                                        why, std::string_view(key)));
    }
  }
  return out;
}

}  // namespace

Response set_file_member(const Request& request, const Target& target, const Catalog& catalog,
                         const RouteContext& ctx, const Catalog::Hit<model::PoolView>& pool,
                         std::string_view member_key) {
  const auto member = catalog.member(*pool.item, member_key);
  if (!member) return fault(404, fmt::format("Member {} not found.", member_key));
  auto set = parse_member_set(request.body, catalog.read_only(*pool.lb));
  if (!set) return fault(set.error().status, set.error().message);
  if (set->state || set->weight) {
    const std::string by = credited_by("Octavia API", request.peer_user);
    auto next =
        model::next_override(member.item->admin_override, set->state, set->weight, ctx.now, by);
    if (auto done = ctx.daemon.set_override(member.item->id, next, by); !done) {
      log::error("admin API: {} {}: {}", request.method, request.target, done.error().message);
      return fault(500, done.error().message);
    }
    log::info("admin API: PUT {} done (runtime override of a file member)", request.target);
  }
  const std::vector<model::LoadBalancerView> views = merged_views(ctx.daemon.views({}), ctx.store);
  const Catalog after(views, ctx.store);
  Target show;
  show.segments = {target.segments[0], "lbaas", "pools", pool.item->id, "members", member.item->id};
  return route_octavia(show, after);
}

}  // namespace vigil::admin
