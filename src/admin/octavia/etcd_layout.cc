#include "admin/octavia/etcd_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "admin/octavia/object_store.h"
#include "admin/octavia/store_json.h"

namespace vigil::admin {
namespace {

constexpr std::string_view kLbDir = "loadbalancers/";
constexpr std::string_view kPoolDir = "pools/";
constexpr std::string_view kMemberDir = "members/";

// `text` cut at each '/' into exactly `n` non-empty parts.
std::optional<std::vector<std::string>> parts(std::string_view text, size_t n) {
  std::vector<std::string> out;
  for (size_t from = 0;;) {
    const size_t slash = text.find('/', from);
    out.emplace_back(text.substr(from, slash - from));
    if (out.back().empty() || out.size() > n) return std::nullopt;
    if (slash == std::string_view::npos) break;
    from = slash + 1;
  }
  if (out.size() != n) return std::nullopt;
  return out;
}

const ApiPool* pool_in(const ApiLoadBalancer& lb, std::string_view id) {
  const auto at = std::ranges::find(lb.pools, id, &ApiPool::id);
  return at == lb.pools.end() ? nullptr : &*at;
}

const ApiMember* member_in(const ApiPool& pool, std::string_view id) {
  const auto at = std::ranges::find(pool.members, id, &ApiMember::id);
  return at == pool.members.end() ? nullptr : &*at;
}

// The load balancer without its members: what its own key holds.
ApiLoadBalancer shell(const ApiLoadBalancer& lb) {
  ApiLoadBalancer out = lb;
  for (ApiPool& p : out.pools) p.members.clear();
  return out;
}

// The ops and compares of one transaction, as they are decided.
class Planner {
 public:
  Planner(const Revisions& revisions, std::string_view prefix)
      : revisions_(revisions), prefix_(prefix) {}

  void guard(const std::string& key) {
    plan_.compares.push_back({.key = key, .mod_revision = known(key)});
  }
  void put(std::string key, std::string value) {
    plan_.ops.push_back(
        {.kind = etcd::Op::Kind::kPut, .key = std::move(key), .value = std::move(value)});
  }
  void erase(std::string key, etcd::Op::Kind kind = etcd::Op::Kind::kDelete) {
    plan_.ops.push_back({.kind = kind, .key = std::move(key), .value = {}});
  }
  bool known_key(const std::string& key) const { return revisions_.contains(key); }
  size_t size() const { return std::max(plan_.ops.size(), plan_.compares.size()); }

  void added(const ApiLoadBalancer& lb);
  void removed(const ApiLoadBalancer& lb);
  void changed(const ApiLoadBalancer& was, const ApiLoadBalancer& lb);

  WritePlan finish() && { return std::move(plan_); }

 private:
  int64_t known(const std::string& key) const {
    const auto it = revisions_.find(key);
    return it == revisions_.end() ? 0 : it->second;
  }
  // The ops and compares of one load balancer (those from the marks on), made again as one whole
  // value when they are more than one transaction may carry.
  void fit(size_t mark_ops, size_t mark_compares, const ApiLoadBalancer* was,
           const ApiLoadBalancer& lb);
  void members_changed(const ApiLoadBalancer& lb, const ApiPool* was, const ApiPool& pool);
  void every_member(const ApiLoadBalancer& was, const ApiLoadBalancer& lb);

  const Revisions& revisions_;
  std::string_view prefix_;
  WritePlan plan_;
};

void Planner::added(const ApiLoadBalancer& lb) {
  const size_t ops = plan_.ops.size(), compares = plan_.compares.size();
  for (const etcd::Op& op : puts_of(lb, prefix_)) put(op.key, op.value);
  guard(lb_key(prefix_, lb.id));
  fit(ops, compares, nullptr, lb);
}

void Planner::removed(const ApiLoadBalancer& lb) {
  plan_.lb_ids.push_back(lb.id);
  guard(lb_key(prefix_, lb.id));
  erase(lb_key(prefix_, lb.id));
  erase(members_of_lb(prefix_, lb.id), etcd::Op::Kind::kDeletePrefix);
  erase(pools_of_lb(prefix_, lb.id), etcd::Op::Kind::kDeletePrefix);
}

void Planner::changed(const ApiLoadBalancer& was, const ApiLoadBalancer& lb) {
  const size_t ops = plan_.ops.size(), compares = plan_.compares.size();
  // Members that etcd holds inside the load balancer's value (no key of their own known) move to
  // keys of their own, and the value is written again without them.
  const bool inside = std::ranges::any_of(was.pools, [&](const ApiPool& p) {
    return std::ranges::any_of(p.members, [&](const ApiMember& m) {
      return !known_key(member_key(prefix_, was.id, p.id, m.id));
    });
  });
  if (inside) {
    every_member(was, lb);
    return fit(ops, compares, &was, lb);
  }
  if (shell(was) != shell(lb)) {
    guard(lb_key(prefix_, lb.id));
    put(lb_key(prefix_, lb.id), lb_shell_to_json(lb));
  }
  for (const ApiPool& pool : lb.pools) members_changed(lb, pool_in(was, pool.id), pool);
  for (const ApiPool& pool : was.pools) {
    if (pool_in(lb, pool.id) != nullptr) continue;
    guard(pool_key(prefix_, lb.id, pool.id));
    erase(pool_key(prefix_, lb.id, pool.id));
    erase(members_of_pool(prefix_, lb.id, pool.id), etcd::Op::Kind::kDeletePrefix);
  }
  fit(ops, compares, &was, lb);
}

// Every member write of a pool moves the pool's key: the guard of the next one.
void Planner::members_changed(const ApiLoadBalancer& lb, const ApiPool* was, const ApiPool& pool) {
  if (was != nullptr && was->members == pool.members) return;
  const std::string guarded = pool_key(prefix_, lb.id, pool.id);
  guard(guarded);
  put(guarded, "");
  for (const ApiMember& m : pool.members) {
    const ApiMember* before = was == nullptr ? nullptr : member_in(*was, m.id);
    if (before == nullptr || *before != m) {
      put(member_key(prefix_, lb.id, pool.id, m.id), member_to_json(m));
    }
  }
  if (was == nullptr) return;
  for (const ApiMember& m : was->members) {
    if (member_in(pool, m.id) == nullptr) erase(member_key(prefix_, lb.id, pool.id, m.id));
  }
}

// The load balancer written again with every member under its own key; the keys this node knows
// of members that are gone are deleted (a range delete would overlap the puts, which etcd
// refuses).
void Planner::every_member(const ApiLoadBalancer& was, const ApiLoadBalancer& lb) {
  guard(lb_key(prefix_, lb.id));
  put(lb_key(prefix_, lb.id), lb_shell_to_json(lb));
  for (const ApiPool& pool : lb.pools) {
    const std::string guarded = pool_key(prefix_, lb.id, pool.id);
    guard(guarded);
    put(guarded, "");
    for (const ApiMember& m : pool.members) {
      put(member_key(prefix_, lb.id, pool.id, m.id), member_to_json(m));
    }
  }
  for (const ApiPool& pool : was.pools) {
    const ApiPool* now = pool_in(lb, pool.id);
    if (now == nullptr) {
      guard(pool_key(prefix_, lb.id, pool.id));
      erase(pool_key(prefix_, lb.id, pool.id));
    }
    for (const ApiMember& m : pool.members) {
      const std::string key = member_key(prefix_, lb.id, pool.id, m.id);
      if ((now == nullptr || member_in(*now, m.id) == nullptr) && known_key(key)) erase(key);
    }
  }
}

void Planner::fit(size_t mark_ops, size_t mark_compares, const ApiLoadBalancer* was,
                  const ApiLoadBalancer& lb) {
  plan_.lb_ids.push_back(lb.id);
  if (size() < kMaxTxnOps) return;
  plan_.ops.resize(mark_ops);
  plan_.compares.resize(mark_compares);
  // Whole, as before members had keys: guarded by the pools' keys too, which every member write
  // moves, and with the members' and pools' keys gone, so that readers take the value's members.
  guard(lb_key(prefix_, lb.id));
  if (was != nullptr) {
    for (const ApiPool& pool : was->pools) guard(pool_key(prefix_, lb.id, pool.id));
  }
  put(lb_key(prefix_, lb.id), lb_to_json(lb));
  erase(members_of_lb(prefix_, lb.id), etcd::Op::Kind::kDeletePrefix);
  erase(pools_of_lb(prefix_, lb.id), etcd::Op::Kind::kDeletePrefix);
}

}  // namespace

std::string lb_key(std::string_view prefix, std::string_view lb) {
  return fmt::format("{}{}{}", prefix, kLbDir, lb);
}

std::string pool_key(std::string_view prefix, std::string_view lb, std::string_view pool) {
  return fmt::format("{}{}{}/{}", prefix, kPoolDir, lb, pool);
}

std::string member_key(std::string_view prefix, std::string_view lb, std::string_view pool,
                       std::string_view member) {
  return fmt::format("{}{}{}/{}/{}", prefix, kMemberDir, lb, pool, member);
}

std::string members_of_lb(std::string_view prefix, std::string_view lb) {
  return fmt::format("{}{}{}/", prefix, kMemberDir, lb);
}

std::string members_of_pool(std::string_view prefix, std::string_view lb, std::string_view pool) {
  return fmt::format("{}{}{}/{}/", prefix, kMemberDir, lb, pool);
}

std::string pools_of_lb(std::string_view prefix, std::string_view lb) {
  return fmt::format("{}{}{}/", prefix, kPoolDir, lb);
}

std::string marker_key(std::string_view prefix) { return fmt::format("{}vigil", prefix); }

std::optional<KeyName> name_of(std::string_view prefix, std::string_view key) {
  if (!key.starts_with(prefix)) return std::nullopt;
  key.remove_prefix(prefix.size());
  if (key == "vigil") return KeyName{.kind = KeyName::Kind::kMarker};
  struct Dir {
    std::string_view dir;
    KeyName::Kind kind;
    size_t parts;
  };
  for (const Dir& d :
       {Dir{kLbDir, KeyName::Kind::kLoadBalancer, 1}, Dir{kPoolDir, KeyName::Kind::kPool, 2},
        Dir{kMemberDir, KeyName::Kind::kMember, 3}}) {
    if (!key.starts_with(d.dir)) continue;
    auto p = parts(key.substr(d.dir.size()), d.parts);
    if (!p) return std::nullopt;
    p->resize(3);
    return KeyName{.kind = d.kind,
                   .lb = std::move((*p)[0]),
                   .pool = std::move((*p)[1]),
                   .member = std::move((*p)[2])};
  }
  return std::nullopt;
}

std::vector<etcd::Op> puts_of(const ApiLoadBalancer& lb, std::string_view prefix) {
  std::vector<etcd::Op> out;
  out.push_back(
      {.kind = etcd::Op::Kind::kPut, .key = lb_key(prefix, lb.id), .value = lb_shell_to_json(lb)});
  for (const ApiPool& pool : lb.pools) {
    out.push_back(
        {.kind = etcd::Op::Kind::kPut, .key = pool_key(prefix, lb.id, pool.id), .value = {}});
    for (const ApiMember& m : pool.members) {
      out.push_back({.kind = etcd::Op::Kind::kPut,
                     .key = member_key(prefix, lb.id, pool.id, m.id),
                     .value = member_to_json(m)});
    }
  }
  if (out.size() < kMaxTxnOps) return out;
  return {{.kind = etcd::Op::Kind::kPut, .key = lb_key(prefix, lb.id), .value = lb_to_json(lb)}};
}

WritePlan plan_write(const ApiState& before, const ApiState& after, const Revisions& revisions,
                     std::string_view prefix) {
  Planner planner(revisions, prefix);
  std::vector<bool> kept(before.loadbalancers.size(), false);
  for_each_pair(before.loadbalancers, after.loadbalancers,
                [&](std::optional<size_t> was, size_t i) {
                  if (was) kept[*was] = true;
                  if (!was) return planner.added(after.loadbalancers[i]);
                  if (after.loadbalancers.shares(i, before.loadbalancers, *was)) return;
                  planner.changed(before.loadbalancers[*was], after.loadbalancers[i]);
                });
  for (size_t j = 0; j < before.loadbalancers.size(); ++j) {
    if (!kept[j]) planner.removed(before.loadbalancers[j]);
  }
  WritePlan plan = std::move(planner).finish();
  if (!plan.ops.empty()) {
    plan.ops.push_back({.kind = etcd::Op::Kind::kPut,
                        .key = marker_key(prefix),
                        .value = std::string(kMarkerValue)});
  }
  return plan;
}

void note_committed(const std::vector<etcd::Op>& ops, int64_t revision, Revisions& revisions) {
  for (const etcd::Op& op : ops) {
    switch (op.kind) {
      case etcd::Op::Kind::kPut:
        revisions.insert_or_assign(op.key, revision);
        break;
      case etcd::Op::Kind::kDelete:
        revisions.erase(op.key);
        break;
      case etcd::Op::Kind::kDeletePrefix:
        for (auto it = revisions.lower_bound(op.key);
             it != revisions.end() && it->first.starts_with(op.key);) {
          it = revisions.erase(it);
        }
        break;
    }
  }
}

}  // namespace vigil::admin
