#include "admin/octavia/populated.h"

#include <fmt/format.h>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <map>
#include <optional>
#include <vector>

#include "admin/octavia/json_fields.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

constexpr std::string_view kArgument = "load_balancer.loadbalancer";

std::string body_of(std::string_view wrapper, json::object o) {
  json::object top;
  top[wrapper] = std::move(o);
  return json::serialize(top);
}

std::unexpected<ApiError> invalid(std::string message) {
  return api_error(400, "Validation failure: " + std::move(message));
}

// Takes `key` out of `o`: its objects, none when absent or null; an error when it is not a list
// of objects.
ApiResult<std::vector<json::object>> take_list(json::object& o, std::string_view key,
                                               std::string_view where) {
  std::vector<json::object> out;
  const auto it = o.find(key);
  if (it == o.end()) return out;
  json::value v = std::move(it->value());
  o.erase(it);
  if (v.is_null()) return out;
  if (!v.is_array()) return invalid(fmt::format("{}.{} must be a list of objects", where, key));
  for (json::value& item : v.as_array()) {
    if (!item.is_object()) {
      return invalid(fmt::format("{}.{} must be a list of objects", where, key));
    }
    out.push_back(std::move(item.as_object()));
  }
  return out;
}

// Takes `key` out of `o`: its object, none when absent or null.
ApiResult<std::optional<json::object>> take_object(json::object& o, std::string_view key,
                                                   std::string_view where) {
  const auto it = o.find(key);
  if (it == o.end()) return std::optional<json::object>();
  json::value v = std::move(it->value());
  o.erase(it);
  if (v.is_null()) return std::optional<json::object>();
  if (!v.is_object()) return invalid(fmt::format("{}.{} must be an object", where, key));
  return std::optional(std::move(v.as_object()));
}

// A nested object belongs to the object it is in: the relation its single create reads is not
// one of its attributes here (WSME's answer in Octavia).
std::optional<ApiError> relation_given(const json::object& o, std::string_view where,
                                       std::initializer_list<std::string_view> keys) {
  std::vector<std::string> given;
  for (std::string_view k : keys) {
    if (o.contains(k)) given.emplace_back(k);
  }
  if (given.empty()) return std::nullopt;
  return ApiError{400, unknown_attributes(where, given)};
}

std::optional<std::string> name_of(const json::object& o) {
  const json::value* v = o.if_contains("name");
  if (v == nullptr || !v->is_string() || v->as_string().empty()) return std::nullopt;
  return std::string(v->as_string());
}

struct Pools {
  std::vector<json::object> specs;                  // every pool to create
  std::vector<std::optional<std::string>> by_name;  // each listener's default pool, by name
};

// The pools to create, from `pools` and the listeners' whole default pools, and which pool each
// listener names. Octavia's rules: a default pool that is more than a name is a whole pool; any
// pool a listener names is named, found, and alone with its name.
ApiResult<Pools> gather_pools(std::vector<json::object>& listeners,
                              std::vector<json::object> pools) {
  Pools out{.specs = std::move(pools), .by_name = {}};
  for (size_t i = 0; i < listeners.size(); ++i) {
    const std::string where = fmt::format("{}.listeners[{}]", kArgument, i);
    auto pool = take_object(listeners[i], "default_pool", where);
    if (!pool) return std::unexpected(pool.error());
    std::optional<std::string> name;
    if (*pool) {
      name = name_of(**pool);
      if (!name)
        return invalid("Pools must be named when creating a fully populated loadbalancer.");
      if ((*pool)->size() > 1) out.specs.push_back(std::move(**pool));
    }
    out.by_name.push_back(std::move(name));
  }
  std::map<std::string, int, std::less<>> names;
  for (const json::object& p : out.specs) {
    if (auto name = name_of(p); name && ++names[*name] > 1) {
      return invalid("Pool names must be unique when creating a fully populated loadbalancer.");
    }
  }
  for (const std::optional<std::string>& name : out.by_name) {
    if (name && !names.contains(*name)) {
      return invalid(
          fmt::format("Pool '{}' was referenced but no full definition was found.", *name));
    }
  }
  return out;
}

// Creates one pool of load balancer `lb_id` with its members and monitor; its id.
ApiResult<std::string> create_pool_tree(ApiState& s, const std::string& lb_id, json::object pool,
                                        size_t i, const OpContext& c) {
  const std::string where = fmt::format("{}.pools[{}]", kArgument, i);
  if (auto given = relation_given(pool, where, {"loadbalancer_id", "listener_id"})) {
    return std::unexpected(*given);
  }
  auto members = take_list(pool, "members", where);
  if (!members) return std::unexpected(members.error());
  auto monitor = take_object(pool, "healthmonitor", where);
  if (!monitor) return std::unexpected(monitor.error());
  pool["loadbalancer_id"] = lb_id;
  auto pool_id = create_pool(s, body_of("pool", std::move(pool)), c);
  if (!pool_id) return pool_id;
  for (json::object& m : *members) {
    if (auto given = relation_given(m, where + ".members", {"pool_id"})) {
      return std::unexpected(*given);
    }
    if (auto made = create_member(s, *pool_id, body_of("member", std::move(m)), c); !made) {
      return made;
    }
  }
  if (*monitor) {
    if (auto given = relation_given(**monitor, where + ".healthmonitor", {"pool_id"})) {
      return std::unexpected(*given);
    }
    (**monitor)["pool_id"] = *pool_id;
    if (auto made = create_healthmonitor(s, body_of("healthmonitor", std::move(**monitor)), c);
        !made) {
      return made;
    }
  }
  return pool_id;
}

}  // namespace

ApiResult<std::string> create_loadbalancer_tree(ApiState& s, std::string_view body,
                                                const OpContext& c) {
  auto object = request_object(body, "loadbalancer");
  if (!object || (!object->contains("listeners") && !object->contains("pools"))) {
    return create_loadbalancer(s, body, c);  // its answer to a malformed body too
  }
  json::object lb = std::move(*object);
  auto listeners = take_list(lb, "listeners", kArgument);
  if (!listeners) return std::unexpected(listeners.error());
  auto pools = take_list(lb, "pools", kArgument);
  if (!pools) return std::unexpected(pools.error());
  auto gathered = gather_pools(*listeners, std::move(*pools));
  if (!gathered) return std::unexpected(gathered.error());
  auto lb_id = create_loadbalancer(s, body_of("loadbalancer", std::move(lb)), c);
  if (!lb_id) return lb_id;
  // Pools first: the listeners name them.
  std::map<std::string, std::string, std::less<>> pool_ids;  // by name
  for (size_t i = 0; i < gathered->specs.size(); ++i) {
    const std::optional<std::string> name = name_of(gathered->specs[i]);
    auto pool_id = create_pool_tree(s, *lb_id, std::move(gathered->specs[i]), i, c);
    if (!pool_id) return pool_id;
    if (name) pool_ids.emplace(*name, *pool_id);
  }
  for (size_t i = 0; i < listeners->size(); ++i) {
    json::object& l = (*listeners)[i];
    const std::string where = fmt::format("{}.listeners[{}]", kArgument, i);
    if (auto given = relation_given(l, where, {"loadbalancer_id"})) return std::unexpected(*given);
    if (const auto& name = gathered->by_name[i]) {
      if (l.contains("default_pool_id")) {
        return invalid(fmt::format("{} names both default_pool and default_pool_id", where));
      }
      l["default_pool_id"] = pool_ids.at(*name);
    }
    l["loadbalancer_id"] = *lb_id;
    if (auto made = create_listener(s, body_of("listener", std::move(l)), c); !made) return made;
  }
  return lb_id;
}

}  // namespace vigil::admin
