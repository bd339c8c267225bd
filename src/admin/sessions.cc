#include "admin/sessions.h"

#include <fmt/format.h>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <variant>

#include "admin/member_admin.h"
#include "admin/octavia/views.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;
using model::LoadBalancerView;
using model::MemberView;
using model::PoolView;
using Ids = std::vector<std::string>;

Response json_response(const json::object& o) {
  Response r;
  r.body = json::serialize(o);
  return r;
}

// The member ids `pool_key` and `member_key` (either may be empty) name, or the error answer.
// A member name found in several pools names all of them unless `unique` asks for one.
std::variant<Ids, Response> resolve(const std::vector<LoadBalancerView>& lbs,
                                    std::string_view pool_key, std::string_view member_key,
                                    bool unique) {
  if (!pool_key.empty() && !member_key.empty()) {
    auto found = find_member(lbs, pool_key, member_key);
    if (auto* r = std::get_if<Response>(&found)) return std::move(*r);
    return Ids{std::get<FoundMember>(found).member->id};
  }
  Ids ids;
  std::vector<std::string> where;
  if (!pool_key.empty()) {
    bool pool_found = false;
    for (const LoadBalancerView& lb : lbs) {
      for (const PoolView& p : lb.pools) {
        if (p.id != pool_key && p.config.name != pool_key) continue;
        pool_found = true;
        for (const MemberView& m : p.members) ids.push_back(m.id);
      }
    }
    if (!pool_found) return fault(404, fmt::format("Pool {} not found.", pool_key));
    return ids;
  }
  for (const LoadBalancerView& lb : lbs) {
    for (const PoolView& p : lb.pools) {
      for (const MemberView& m : p.members) {
        if (m.id != member_key && m.config.name != member_key) continue;
        ids.push_back(m.id);
        where.push_back(p.config.name);
      }
    }
  }
  if (ids.empty()) return fault(404, fmt::format("Member {} not found.", member_key));
  if (unique && ids.size() > 1) {
    std::string pools;
    for (const std::string& w : where) pools += (pools.empty() ? "" : ", ") + w;
    return fault(409, fmt::format("more than one pool has a member {} ({}): give the pool",
                                  member_key, pools));
  }
  return ids;
}

json::object row_json(const SessionRow& s) {
  return {{"id", s.id},
          {"listener", s.listener},
          {"pool", s.pool},
          {"member", s.member},
          {"client", s.client},
          {"member_address", s.member_address},
          {"age_seconds", s.age_seconds},
          {"bytes_in", s.bytes_in},
          {"bytes_out", s.bytes_out}};
}

}  // namespace

Response list_sessions(const Target& target, const RouteContext& ctx) {
  const std::string pool = target.param("pool").value_or("");
  const std::string member = target.param("member").value_or("");
  std::optional<Ids> ids;
  if (!pool.empty() || !member.empty()) {
    auto resolved = resolve(merged_views(ctx.daemon.views({}), ctx.store), pool, member, false);
    if (auto* r = std::get_if<Response>(&resolved)) return std::move(*r);
    ids = std::move(std::get<Ids>(resolved));
  }
  Response r;
  r.later = [&daemon = ctx.daemon, ids = std::move(ids)](std::function<void(Response)> send) {
    daemon.list_sessions(
        ids, kMaxListedSessions, [send = std::move(send)](Result<SessionTable> table) {
          if (!table) return send(fault(503, table.error().message));
          json::array rows;
          for (const SessionRow& s : table->rows) rows.push_back(row_json(s));
          const bool truncated = table->total > table->rows.size();
          send(json_response(
              {{"sessions", std::move(rows)}, {"total", table->total}, {"truncated", truncated}}));
        });
  };
  return r;
}

// {"pool": "masters", "member": "master-01"}: the member is required, the pool only when the
// member's name is in more than one.
Response kill_sessions(const Request& request, const RouteContext& ctx) {
  boost::system::error_code ec;
  const json::value v = json::parse(request.body, ec);
  if (ec || !v.is_object()) {
    return fault(400, "the body must be a JSON object such as {\"member\": \"master-01\"}");
  }
  std::string pool;
  std::string member;
  for (const auto& [key, value] : v.as_object()) {
    if (!value.is_string()) {
      return fault(400, fmt::format("\"{}\" must be a string", std::string_view(key)));
    }
    if (key == "pool") {
      pool = value.as_string();
    } else if (key == "member") {
      member = value.as_string();
    } else {
      return fault(400, fmt::format("unknown field \"{}\": the body takes pool and member",
                                    std::string_view(key)));
    }
  }
  if (member.empty()) return fault(400, "give the member whose sessions to close");
  auto resolved = resolve(merged_views(ctx.daemon.views({}), ctx.store), pool, member, true);
  if (auto* r = std::get_if<Response>(&resolved)) return std::move(*r);
  Response r;
  r.later = [&daemon = ctx.daemon,
             ids = std::move(std::get<Ids>(resolved))](std::function<void(Response)> send) {
    daemon.kill_sessions(ids, [send = std::move(send)](Result<size_t> killed) {
      if (!killed) return send(fault(503, killed.error().message));
      send(json_response({{"killed", *killed}}));
    });
  };
  return r;
}

}  // namespace vigil::admin
