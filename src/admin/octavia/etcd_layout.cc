#include "admin/octavia/etcd_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "admin/octavia/object_store.h"
#include "admin/octavia/store_json.h"

namespace vigil::admin {
namespace {

constexpr std::string_view kLbDir = "loadbalancers/";

std::optional<size_t> index_of(const LoadBalancers& lbs, std::string_view id) {
  const auto at = std::ranges::find(lbs, id, &ApiLoadBalancer::id);
  if (at == lbs.end()) return std::nullopt;
  return static_cast<size_t>(at - lbs.begin());
}

int64_t known(const Revisions& revisions, const std::string& id) {
  const auto it = revisions.find(id);
  return it == revisions.end() ? 0 : it->second;
}

// The load balancer a key's value holds, when it is a valid one of the key's id.
Result<ApiLoadBalancer> lb_of(const std::string& id, std::string_view value) {
  auto lb = lb_from_json(value);
  if (!lb) return lb;
  if (lb->id != id) return fail(fmt::format("it holds the load balancer {}", lb->id));
  return lb;
}

void put(LoadBalancers& lbs, ApiLoadBalancer lb) {
  if (auto i = index_of(lbs, lb.id)) {
    lbs.edit(*i) = std::move(lb);
  } else {
    lbs.push_back(std::move(lb));
  }
}

std::string problem(std::string_view key, std::string_view why) {
  return fmt::format("{}: {}", key, why);
}

}  // namespace

std::string lb_key(std::string_view prefix, std::string_view id) {
  return fmt::format("{}{}{}", prefix, kLbDir, id);
}

std::optional<std::string> lb_id_of(std::string_view prefix, std::string_view key) {
  if (!key.starts_with(prefix)) return std::nullopt;
  key.remove_prefix(prefix.size());
  if (!key.starts_with(kLbDir)) return std::nullopt;
  key.remove_prefix(kLbDir.size());
  if (key.empty() || key.find('/') != std::string_view::npos) return std::nullopt;
  return std::string(key);
}

std::string marker_key(std::string_view prefix) { return fmt::format("{}vigil", prefix); }

WritePlan plan_write(const ApiState& before, const ApiState& after, const Revisions& revisions,
                     std::string_view prefix) {
  WritePlan plan;
  std::vector<bool> kept(before.loadbalancers.size(), false);
  for_each_pair(
      before.loadbalancers, after.loadbalancers, [&](std::optional<size_t> was, size_t i) {
        if (was) kept[*was] = true;
        if (was && after.loadbalancers.shares(i, before.loadbalancers, *was)) return;
        const ApiLoadBalancer& lb = after.loadbalancers[i];
        const std::string key = lb_key(prefix, lb.id);
        plan.compares.push_back({.key = key, .mod_revision = was ? known(revisions, lb.id) : 0});
        plan.ops.push_back({.kind = etcd::Op::Kind::kPut, .key = key, .value = lb_to_json(lb)});
        plan.put_ids.push_back(lb.id);
      });
  for (size_t j = 0; j < before.loadbalancers.size(); ++j) {
    if (kept[j]) continue;
    const std::string& id = before.loadbalancers[j].id;
    const std::string key = lb_key(prefix, id);
    plan.compares.push_back({.key = key, .mod_revision = known(revisions, id)});
    plan.ops.push_back({.kind = etcd::Op::Kind::kDelete, .key = key, .value = {}});
    plan.deleted_ids.push_back(id);
  }
  if (!plan.ops.empty()) {
    plan.ops.push_back({.kind = etcd::Op::Kind::kPut,
                        .key = marker_key(prefix),
                        .value = std::string(kMarkerValue)});
  }
  return plan;
}

Followed follow_events(const ApiState& state, const Revisions& revisions,
                       const std::vector<etcd::Event>& events, std::string_view prefix) {
  Followed out{.next = state, .revisions = revisions, .problems = {}, .changed = 0};
  for (const etcd::Event& e : events) {
    const auto id = lb_id_of(prefix, e.kv.key);
    if (!id) {
      if (e.kv.key != marker_key(prefix)) {
        out.problems.push_back(problem(e.kv.key, "not a key vigil writes; left alone"));
      }
      continue;
    }
    if (known(out.revisions, *id) >= e.kv.mod_revision) continue;  // seen, or this node's own
    if (e.kind == etcd::Event::Kind::kDelete) {
      out.revisions.erase(*id);
      if (auto i = index_of(out.next.loadbalancers, *id)) {
        out.next.loadbalancers.erase(*i);
        ++out.changed;
      }
      continue;
    }
    auto lb = lb_of(*id, e.kv.value);
    if (!lb) {
      out.problems.push_back(problem(e.kv.key, lb.error().message));
      continue;
    }
    put(out.next.loadbalancers, std::move(*lb));
    out.revisions[*id] = e.kv.mod_revision;
    ++out.changed;
  }
  return out;
}

Followed follow_range(const ApiState& state, const Revisions& revisions,
                      const std::vector<etcd::KeyValue>& kvs, std::string_view prefix) {
  Followed out{.next = state, .revisions = {}, .problems = {}, .changed = 0};
  std::vector<std::pair<std::string, const etcd::KeyValue*>> ordered;  // id, its key
  std::unordered_set<std::string> in_etcd;
  for (const etcd::KeyValue& kv : kvs) {
    const auto id = lb_id_of(prefix, kv.key);
    if (!id) {
      if (kv.key != marker_key(prefix)) {
        out.problems.push_back(problem(kv.key, "not a key vigil writes; left alone"));
      }
      continue;
    }
    in_etcd.insert(*id);
    ordered.emplace_back(*id, &kv);
  }
  LoadBalancers& lbs = out.next.loadbalancers;
  for (size_t i = lbs.size(); i-- > 0;) {
    if (!in_etcd.contains(lbs[i].id)) {
      lbs.erase(i);
      ++out.changed;
    }
  }
  std::ranges::stable_sort(ordered, {}, [](const auto& o) { return o.second->create_revision; });
  for (const auto& [id, kv] : ordered) {
    const std::optional<size_t> at = index_of(lbs, id);
    const bool present = at.has_value();
    // Known at this revision, or (at start, when nothing is known) the very text this node holds:
    // kept as it runs, not made anew.
    if (present &&
        (known(revisions, id) == kv->mod_revision || lb_to_json(lbs[*at]) == kv->value)) {
      out.revisions[id] = kv->mod_revision;
      continue;
    }
    auto lb = lb_of(id, kv->value);
    if (!lb) {
      // The last good version, if this node has one, stays: never half of a broken object.
      out.problems.push_back(problem(kv->key, lb.error().message));
      if (present && revisions.contains(id)) out.revisions[id] = revisions.at(id);
      continue;
    }
    put(lbs, std::move(*lb));
    out.revisions[id] = kv->mod_revision;
    ++out.changed;
  }
  return out;
}

}  // namespace vigil::admin
