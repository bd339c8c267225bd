#include "admin/octavia/store_json.h"

#include <fmt/format.h>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <set>

#include "admin/octavia/fields.h"
#include "admin/octavia/json_fields.h"
#include "admin/octavia/quotas.h"
#include "admin/octavia/random_id.h"
#include "admin/override_json.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

// Marks a load balancer written without its members (lb_shell_to_json): a reader that does not
// know the field refuses the value instead of taking the load balancer for one without members.
constexpr std::string_view kMembersApart = "members_apart";

json::value text_or_null(const std::string& s) {
  return s.empty() ? json::value() : json::value(s);
}

template <typename T>
json::value optional_value(const std::optional<T>& v) {
  return v ? json::value(*v) : json::value();
}

void put_common(json::object& o, const ApiCommon& c, bool has_description) {
  o["id"] = c.id;
  o["name"] = c.name;
  if (has_description) o["description"] = c.description;
  o["project_id"] = c.project_id;
  o["tags"] = json::array(c.tags.begin(), c.tags.end());
  o["admin_state_up"] = c.admin_state_up;
  o["created_at"] = c.created_at;
  o["updated_at"] = c.updated_at;
}

json::object monitor_json(const ApiHealthMonitor& hm) {
  json::object o;
  put_common(o, hm, false);
  o["type"] = hm.type;
  o["delay"] = hm.delay;
  o["timeout"] = hm.timeout;
  o["max_retries"] = hm.max_retries;
  o["max_retries_down"] = hm.max_retries_down;
  o["http_method"] = text_or_null(hm.http_method);
  o["url_path"] = text_or_null(hm.url_path);
  o["expected_codes"] = text_or_null(hm.expected_codes);
  o["http_version"] = optional_value(hm.http_version);
  o["domain_name"] = text_or_null(hm.domain_name);
  return o;
}

json::object member_json(const ApiMember& m) {
  json::object o;
  put_common(o, m, false);
  o["address"] = m.address;
  o["protocol_port"] = m.protocol_port;
  o["weight"] = m.weight;
  o["backup"] = m.backup;
  o["monitor_address"] = text_or_null(m.monitor_address);
  o["monitor_port"] = m.monitor_port == 0 ? json::value() : json::value(m.monitor_port);
  o["subnet_id"] = text_or_null(m.subnet_id);
  return o;
}

json::object pool_json(const ApiPool& p, bool with_members) {
  json::object o;
  put_common(o, p, true);
  o["protocol"] = p.protocol;
  o["lb_algorithm"] = p.lb_algorithm;
  if (p.session_persistence) {
    const ApiSessionPersistence& sp = *p.session_persistence;
    o["session_persistence"] =
        json::object{{"type", sp.type},
                     {"persistence_timeout", optional_value(sp.persistence_timeout)},
                     {"persistence_granularity", text_or_null(sp.persistence_granularity)}};
  }
  o["healthmonitor"] = p.healthmonitor ? json::value(monitor_json(*p.healthmonitor)) : nullptr;
  if (!with_members) return o;
  json::array members;
  for (const ApiMember& m : p.members) members.push_back(member_json(m));
  o["members"] = std::move(members);
  return o;
}

json::object listener_json(const ApiListener& l) {
  json::object o;
  put_common(o, l, true);
  o["protocol"] = l.protocol;
  o["protocol_port"] = l.protocol_port;
  o["connection_limit"] = l.connection_limit;
  o["default_pool_id"] = text_or_null(l.default_pool_id);
  o["timeout_client_data"] = optional_value(l.timeout_client_data);
  o["timeout_member_connect"] = optional_value(l.timeout_member_connect);
  o["timeout_member_data"] = optional_value(l.timeout_member_data);
  o["timeout_tcp_inspect"] = optional_value(l.timeout_tcp_inspect);
  if (!l.allowed_cidrs.empty()) {
    o["allowed_cidrs"] = json::array(l.allowed_cidrs.begin(), l.allowed_cidrs.end());
  }
  return o;
}

json::object lb_json(const ApiLoadBalancer& lb, bool with_members = true) {
  json::object o;
  if (!with_members) o[kMembersApart] = true;
  put_common(o, lb, true);
  o["vip_address"] = lb.vip_address;
  o["vip_subnet_id"] = lb.vip_subnet_id;
  o["vip_network_id"] = lb.vip_network_id;
  o["topology"] = lb.topology;
  json::array listeners, pools;
  for (const ApiListener& l : lb.listeners) listeners.push_back(listener_json(l));
  for (const ApiPool& p : lb.pools) pools.push_back(pool_json(p, with_members));
  o["listeners"] = std::move(listeners);
  o["pools"] = std::move(pools);
  return o;
}

// Loading: each object goes through the API's reader, after the nested lists are taken out.
class Loader {
 public:
  std::optional<std::string> error;

  json::value take(json::object& o, std::string_view key) {
    json::value v;
    if (auto* p = o.if_contains(key)) v = std::move(*p);
    o.erase(key);
    return v;
  }

  const json::array* list(const json::value& v, const std::string& where) {
    if (v.is_array()) return &v.as_array();
    fail(where, "expected a list");
    return nullptr;
  }

  void fail(const std::string& where, std::string_view message) {
    if (!error) error = fmt::format("{}: {}", where, message);
  }

  // Reads id, created_at and updated_at, then the object's own fields with `read`.
  template <typename T, typename Read>
  bool object(const json::value& v, const std::string& where, T& out, Read read) {
    if (!v.is_object()) {
      fail(where, "expected an object");
      return false;
    }
    FieldReader r(v.as_object(), where);
    r.require("id");
    if (auto id = r.string("id")) out.id = *id;
    if (auto t = r.string("created_at")) out.created_at = *t;
    if (auto t = r.string("updated_at")) out.updated_at = *t;
    read(r, out);
    if (r.ok() && !is_uuid(out.id)) r.invalid("id", "Value should be UUID format");
    if (r.ok() && !ids_.insert(out.id).second) r.fail(400, "the id " + out.id + " appears twice");
    if (auto e = r.finish()) fail(where, e->message);
    return !error;
  }

 private:
  std::set<std::string> ids_;
};

void load_member(Loader& ld, const json::value& v, const std::string& where, ApiPool& p);

void load_pool(Loader& ld, json::value v, const std::string& where, ApiPool& p) {
  if (!v.is_object()) return ld.fail(where, "expected an object");
  json::object& o = v.as_object();
  const json::value monitor = ld.take(o, "healthmonitor");
  const json::value members = ld.take(o, "members");
  if (!ld.object(v, where, p, [](FieldReader& r, ApiPool& x) { read_pool(r, x, Mode::kCreate); })) {
    return;
  }
  if (!monitor.is_null()) {
    ApiHealthMonitor hm;
    auto read = [](FieldReader& r, ApiHealthMonitor& x) {
      read_healthmonitor(r, x, Mode::kCreate);
    };
    if (ld.object(monitor, where + ".healthmonitor", hm, read)) p.healthmonitor = std::move(hm);
  }
  if (members.is_null()) return;
  const json::array* list = ld.list(members, where + ".members");
  for (size_t i = 0; list != nullptr && i < list->size() && !ld.error; ++i) {
    load_member(ld, (*list)[i], fmt::format("{}.members[{}]", where, i), p);
  }
}

void load_lb(Loader& ld, json::value v, const std::string& where, ApiState& out) {
  if (!v.is_object()) return ld.fail(where, "expected an object");
  json::object& o = v.as_object();
  const json::value listeners = ld.take(o, "listeners");
  const json::value pools = ld.take(o, "pools");
  ApiLoadBalancer lb;
  auto read_lb = [](FieldReader& r, ApiLoadBalancer& x) {
    read_loadbalancer(r, x, Mode::kCreate);
    r.require("vip_address");
  };
  if (!ld.object(v, where, lb, read_lb)) return;
  if (const json::array* list = pools.is_null() ? nullptr : ld.list(pools, where + ".pools")) {
    for (size_t i = 0; i < list->size() && !ld.error; ++i) {
      ApiPool p;
      load_pool(ld, (*list)[i], fmt::format("{}.pools[{}]", where, i), p);
      lb.pools.push_back(std::move(p));
    }
  }
  if (const json::array* list =
          listeners.is_null() ? nullptr : ld.list(listeners, where + ".listeners")) {
    for (size_t i = 0; i < list->size() && !ld.error; ++i) {
      ApiListener l;
      const std::string at = fmt::format("{}.listeners[{}]", where, i);
      auto read = [&](FieldReader& r, ApiListener& x) {
        if (auto pool = r.string("default_pool_id")) x.default_pool_id = *pool;
        read_listener(r, x, Mode::kCreate);
      };
      if (!ld.object((*list)[i], at, l, read)) break;
      const bool known = l.default_pool_id.empty() ||
                         std::any_of(lb.pools.begin(), lb.pools.end(),
                                     [&](const ApiPool& p) { return p.id == l.default_pool_id; });
      if (!known)
        ld.fail(at, "default_pool_id " + l.default_pool_id +
                        " is no pool of its load "
                        "balancer");
      lb.listeners.push_back(std::move(l));
    }
  }
  out.loadbalancers.push_back(std::move(lb));
}

// Absent in files written before overrides existed: none.
Result<void> load_overrides(const json::object& top, ApiState& out) {
  const json::value* all = top.if_contains("member_overrides");
  if (all == nullptr || all->is_null()) return {};
  if (!all->is_object()) return fail("\"member_overrides\" must be an object keyed by member id");
  for (const auto& [id, v] : all->as_object()) {
    auto o = override_from_json(v);
    if (!o)
      return fail(fmt::format("member_overrides.{}: {}", std::string_view(id), o.error().message));
    out.member_overrides.emplace(std::string(id), std::move(*o));
  }
  return {};
}

// One member, with the checks a state file's get.
void load_member(Loader& ld, const json::value& v, const std::string& where, ApiPool& p) {
  ApiMember m;
  auto read = [](FieldReader& r, ApiMember& x) { read_member(r, x, Mode::kCreate); };
  if (ld.object(v, where, m, read)) p.members.push_back(std::move(m));
}

// Absent in files written before quotas existed: none.
Result<void> load_quotas(const json::object& top, ApiState& out) {
  const json::value* all = top.if_contains("quotas");
  if (all == nullptr || all->is_null()) return {};
  if (!all->is_object()) return fail("\"quotas\" must be an object keyed by project id");
  for (const auto& [project, v] : all->as_object()) {
    const std::string where = fmt::format("quotas.{}", std::string_view(project));
    if (!v.is_object()) return fail(where + " must be an object");
    auto q = quota_from_state(v.as_object(), where);
    if (!q) return fail(where + ": " + q.error().message);
    out.quotas.emplace(std::string(project), std::move(*q));
  }
  return {};
}

json::object quotas_json(const ApiState::Quotas& quotas) {
  json::object all;
  for (const auto& [project, q] : quotas) all[project] = quota_to_state(q);
  return all;
}

}  // namespace

std::string lb_to_json(const ApiLoadBalancer& lb) { return json::serialize(lb_json(lb)); }

std::string lb_shell_to_json(const ApiLoadBalancer& lb) {
  return json::serialize(lb_json(lb, false));
}

std::string member_to_json(const ApiMember& m) { return json::serialize(member_json(m)); }

Result<ApiMember> member_from_json(std::string_view text) {
  boost::system::error_code ec;
  json::value doc = json::parse(text, ec);
  if (ec) return fail(fmt::format("not valid JSON ({})", ec.message()));
  Loader ld;
  ApiPool one;
  load_member(ld, doc, "member", one);
  if (ld.error) return fail(*ld.error);
  return std::move(one.members.at(0));
}

std::string state_to_json(std::span<const std::string> lbs, const ApiState::Overrides& overrides,
                          std::string_view journal, const ApiState::Quotas& quotas) {
  // As json::serialize writes {"version": 1, "loadbalancers": [...], "member_overrides": {...}}.
  size_t size = 96;
  for (const std::string& lb : lbs) size += lb.size() + 1;
  std::string out;
  out.reserve(size);
  out += fmt::format("{{\"version\":{},", kStateVersion);
  if (!journal.empty()) out += "\"journal\":" + json::serialize(json::string(journal)) + ",";
  out += "\"loadbalancers\":[";
  for (size_t i = 0; i < lbs.size(); ++i) {
    if (i > 0) out += ',';
    out += lbs[i];
  }
  out += ']';
  if (!overrides.empty()) {
    json::object all;
    for (const auto& [id, o] : overrides) all[id] = override_json(o);
    out += ",\"member_overrides\":";
    out += json::serialize(all);
  }
  if (!quotas.empty()) out += ",\"quotas\":" + json::serialize(quotas_json(quotas));
  out += "}\n";
  return out;
}

std::string state_to_json(const ApiState& state) {
  std::vector<std::string> lbs;
  lbs.reserve(state.loadbalancers.size());
  for (const ApiLoadBalancer& lb : state.loadbalancers) lbs.push_back(lb_to_json(lb));
  return state_to_json(lbs, state.member_overrides, {}, state.quotas);
}

std::string members_change_to_json(std::string_view lb_id, const PoolMembersChange& change) {
  json::object o;
  o["loadbalancer_id"] = lb_id;
  o["pool_id"] = change.pool_id;
  json::array put;
  for (const ApiMember& m : change.put) put.emplace_back(member_json(m));
  o["put"] = std::move(put);
  json::array removed;
  for (const std::string& id : change.removed) removed.emplace_back(id);
  o["delete"] = std::move(removed);
  return json::serialize(o);
}

std::string record_to_json(std::span<const std::string> put, std::span<const std::string> removed,
                           const ApiState::Overrides* overrides, const ApiState::Quotas* quotas,
                           std::span<const std::string> members) {
  std::string out = "{";
  if (!put.empty()) {
    out += "\"put\":[";
    for (size_t i = 0; i < put.size(); ++i) out += (i > 0 ? "," : "") + put[i];
    out += "]";
  }
  if (!members.empty()) {
    if (out.size() > 1) out += ",";
    out += "\"members\":[";
    for (size_t i = 0; i < members.size(); ++i) out += (i > 0 ? "," : "") + members[i];
    out += "]";
  }
  if (!removed.empty()) {
    if (out.size() > 1) out += ",";
    json::array ids;
    for (const std::string& id : removed) ids.emplace_back(id);
    out += "\"delete\":" + json::serialize(ids);
  }
  if (overrides != nullptr) {
    if (out.size() > 1) out += ",";
    json::object all;
    for (const auto& [id, o] : *overrides) all[id] = override_json(o);
    out += "\"member_overrides\":" + json::serialize(all);
  }
  if (quotas != nullptr) {
    if (out.size() > 1) out += ",";
    out += "\"quotas\":" + json::serialize(quotas_json(*quotas));
  }
  return out + "}\n";
}

namespace {

// A record's "members" (see record_to_json()), each with the id of its load balancer.
Result<std::vector<std::pair<std::string, PoolMembersChange>>> read_members_changes(
    const json::value& v, Loader& ld) {
  if (!v.is_array()) return fail("\"members\" must be a list");
  std::vector<std::pair<std::string, PoolMembersChange>> out;
  for (size_t i = 0; i < v.as_array().size(); ++i) {
    const std::string where = fmt::format("members[{}]", i);
    const json::object* o = v.as_array()[i].if_object();
    const json::value* lb = o ? o->if_contains("loadbalancer_id") : nullptr;
    const json::value* pool = o ? o->if_contains("pool_id") : nullptr;
    const json::value* put = o ? o->if_contains("put") : nullptr;
    const json::value* removed = o ? o->if_contains("delete") : nullptr;
    if (lb == nullptr || !lb->is_string() || pool == nullptr || !pool->is_string() ||
        put == nullptr || !put->is_array() || removed == nullptr || !removed->is_array()) {
      return fail(where +
                  ": expected {\"loadbalancer_id\": id, \"pool_id\": id, \"put\": [...], "
                  "\"delete\": [...]}");
    }
    PoolMembersChange change{.pool_id = std::string(pool->as_string())};
    ApiPool made;
    for (size_t k = 0; k < put->as_array().size() && !ld.error; ++k) {
      load_member(ld, put->as_array()[k], fmt::format("{}.put[{}]", where, k), made);
    }
    if (ld.error) return fail(*ld.error);
    change.put = std::move(made.members);
    for (const json::value& id : removed->as_array()) {
      if (!id.is_string()) return fail(where + ".delete: expected a list of ids");
      change.removed.emplace_back(id.as_string());
    }
    out.emplace_back(std::string(lb->as_string()), std::move(change));
  }
  return out;
}

}  // namespace

Result<void> apply_record(std::string_view record, ApiState& state) {
  boost::system::error_code ec;
  json::value doc = json::parse(record, ec);
  if (ec) return fail(fmt::format("not valid JSON ({})", ec.message()));
  if (!doc.is_object()) return fail("expected a JSON object");
  json::object& top = doc.as_object();
  Loader ld;
  ApiState put;
  if (json::value* lbs = top.if_contains("put")) {
    if (!lbs->is_array()) return fail("\"put\" must be a list");
    for (size_t i = 0; i < lbs->as_array().size() && !ld.error; ++i) {
      load_lb(ld, lbs->as_array()[i], fmt::format("put[{}]", i), put);
    }
    if (ld.error) return fail(*ld.error);
  }
  std::vector<std::string> removed;
  if (const json::value* ids = top.if_contains("delete")) {
    if (!ids->is_array()) return fail("\"delete\" must be a list of ids");
    for (const json::value& id : ids->as_array()) {
      if (!id.is_string()) return fail("\"delete\" must be a list of ids");
      removed.emplace_back(id.as_string());
    }
  }
  ApiState overrides;
  if (auto loaded = load_overrides(top, overrides); !loaded) return loaded;
  if (auto loaded = load_quotas(top, overrides); !loaded) return loaded;
  std::vector<std::pair<std::string, PoolMembersChange>> members;  // by load balancer id
  if (const json::value* changes = top.if_contains("members")) {
    auto read = read_members_changes(*changes, ld);
    if (!read) return fail(read.error().message);
    members = std::move(*read);
  }
  // Checked whole before anything changes: a bad record changes nothing.
  std::vector<std::pair<size_t, size_t>> members_at;  // (load balancer, pool) of each change
  for (const auto& [lb_id, change] : members) {
    // A members change follows the puts and deletes of its own record (a write changes either).
    const auto at = std::ranges::find(state.loadbalancers, lb_id, &ApiLoadBalancer::id);
    const bool put_here = std::ranges::find(put.loadbalancers, lb_id, &ApiLoadBalancer::id) !=
                          put.loadbalancers.end();
    if (at == state.loadbalancers.end() || put_here) {
      return fail(fmt::format("members of load balancer {}, which is not there", lb_id));
    }
    const auto pool = std::ranges::find(at->pools, change.pool_id, &ApiPool::id);
    if (pool == at->pools.end()) {
      return fail(fmt::format("members of pool {}, which load balancer {} does not hold",
                              change.pool_id, lb_id));
    }
    members_at.emplace_back(at - state.loadbalancers.begin(), pool - at->pools.begin());
  }
  for (size_t i = 0; i < members.size(); ++i) {
    apply_members_change(state.loadbalancers.edit(members_at[i].first).pools[members_at[i].second],
                         members[i].second);
  }
  for (const ApiLoadBalancer& lb : put.loadbalancers) {
    const auto at = std::ranges::find(state.loadbalancers, lb.id, &ApiLoadBalancer::id);
    if (at == state.loadbalancers.end()) {
      state.loadbalancers.push_back(lb);
    } else {
      state.loadbalancers.edit(static_cast<size_t>(at - state.loadbalancers.begin())) = lb;
    }
  }
  for (const std::string& id : removed) {
    const auto at = std::ranges::find(state.loadbalancers, id, &ApiLoadBalancer::id);
    if (at != state.loadbalancers.end()) {
      state.loadbalancers.erase(static_cast<size_t>(at - state.loadbalancers.begin()));
    }
  }
  if (top.contains("member_overrides"))
    state.member_overrides = std::move(overrides.member_overrides);
  if (top.contains("quotas")) state.quotas = std::move(overrides.quotas);
  return {};
}

Result<ApiLoadBalancer> lb_from_json(std::string_view text) {
  boost::system::error_code ec;
  json::value doc = json::parse(text, ec);
  if (ec) return fail(fmt::format("not valid JSON ({})", ec.message()));
  if (json::object* o = doc.if_object()) {
    if (const json::value* apart = o->if_contains(kMembersApart)) {
      if (*apart != true) return fail(fmt::format("loadbalancer.{}: expected true", kMembersApart));
      o->erase(kMembersApart);
    }
  }
  Loader ld;
  ApiState one;
  load_lb(ld, std::move(doc), "loadbalancer", one);
  if (ld.error) return fail(*ld.error);
  if (one.loadbalancers.size() != 1) return fail("expected one load balancer");
  return one.loadbalancers[0];
}

Result<ApiState> state_from_json(std::string_view text, std::string* journal) {
  boost::system::error_code ec;
  json::value doc = json::parse(text, ec);
  if (ec) return fail(fmt::format("not valid JSON ({})", ec.message()));
  if (!doc.is_object())
    return fail("expected a JSON object {\"version\": 1, \"loadbalancers\": [...]}");
  json::object& top = doc.as_object();
  const json::value* version = top.if_contains("version");
  if (version == nullptr || !version->is_int64() || version->as_int64() != kStateVersion) {
    return fail(fmt::format("unknown format version {} (this vigil reads version {})",
                            version ? json::serialize(*version) : "none", kStateVersion));
  }
  if (const json::value* id = top.if_contains("journal"); journal != nullptr) {
    if (id != nullptr && !id->is_string()) return fail("\"journal\" must be a string");
    *journal = id != nullptr ? std::string(id->as_string()) : std::string();
  }
  const json::value* lbs = top.if_contains("loadbalancers");
  if (lbs == nullptr || !lbs->is_array()) return fail("\"loadbalancers\" must be a list");
  Loader ld;
  ApiState out;
  for (size_t i = 0; i < lbs->as_array().size() && !ld.error; ++i) {
    load_lb(ld, lbs->as_array()[i], fmt::format("loadbalancers[{}]", i), out);
  }
  if (ld.error) return fail(*ld.error);
  if (auto loaded = load_overrides(top, out); !loaded) return std::unexpected(loaded.error());
  if (auto loaded = load_quotas(top, out); !loaded) return std::unexpected(loaded.error());
  return out;
}

}  // namespace vigil::admin
