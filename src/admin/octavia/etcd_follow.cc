#include "admin/octavia/etcd_follow.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <ranges>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "admin/octavia/store_json.h"

namespace vigil::admin {
namespace {

using Kind = KeyName::Kind;

std::optional<size_t> index_of(const LoadBalancers& lbs, std::string_view id) {
  const auto at = std::ranges::find(lbs, id, &ApiLoadBalancer::id);
  if (at == lbs.end()) return std::nullopt;
  return static_cast<size_t>(at - lbs.begin());
}

int64_t known(const Revisions& revisions, std::string_view key) {
  const auto it = revisions.find(key);
  return it == revisions.end() ? 0 : it->second;
}

template <typename Lb>
auto* pool_in(Lb& lb, std::string_view id) {
  const auto at = std::ranges::find(lb.pools, id, &ApiPool::id);
  return at == lb.pools.end() ? nullptr : &*at;
}

// The keys under `start` that `revisions` holds.
auto under(const Revisions& revisions, std::string_view start) {
  return std::ranges::subrange(revisions.lower_bound(start), revisions.end()) |
         std::views::take_while([start](const auto& kv) { return kv.first.starts_with(start); });
}

void forget_under(Revisions& revisions, std::string_view start) {
  for (auto it = revisions.lower_bound(start);
       it != revisions.end() && it->first.starts_with(start);) {
    it = revisions.erase(it);
  }
}

// The load balancer a key's value holds, when it is a valid one of the key's id.
Result<ApiLoadBalancer> lb_of(const std::string& id, std::string_view value) {
  auto lb = lb_from_json(value);
  if (!lb) return lb;
  if (lb->id != id) return fail(fmt::format("it holds the load balancer {}", lb->id));
  return lb;
}

Result<ApiMember> member_of(const std::string& id, std::string_view value) {
  auto m = member_from_json(value);
  if (!m) return m;
  if (m->id != id) return fail(fmt::format("it holds the member {}", m->id));
  return m;
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

// The load balancers that a batch's events change, copied once each; carried into the state at
// the end, so that one that ends as it was stays shared and no change reaches the daemon.
class Working {
 public:
  explicit Working(const LoadBalancers& before) : before_(before) {}

  // The load balancer as the events so far left it; none: there is none.
  std::optional<ApiLoadBalancer>& at(const std::string& id) {
    auto [it, fresh] = work_.try_emplace(id);
    if (fresh) {
      order_.push_back(id);
      if (auto i = index_of(before_, id)) it->second = before_[*i];
    }
    return it->second;
  }

  // How many load balancers of `lbs` (a copy of `before`) it put or removed.
  size_t carry_into(LoadBalancers& lbs) {
    size_t changed = 0;
    for (const std::string& id : order_) {
      std::optional<ApiLoadBalancer>& lb = work_.at(id);
      const std::optional<size_t> i = index_of(lbs, id);
      if (!lb) {
        if (i) lbs.erase(*i);
        changed += i ? 1 : 0;
        continue;
      }
      if (i && lbs[*i] == *lb) continue;
      put(lbs, std::move(*lb));
      ++changed;
    }
    return changed;
  }

 private:
  const LoadBalancers& before_;
  std::unordered_map<std::string, std::optional<ApiLoadBalancer>> work_;
  std::vector<std::string> order_;
};

struct Follower {
  Followed& out;
  Working& work;
  std::string_view prefix;

  void load_balancer(const KeyName& name, const etcd::Event& e) {
    std::optional<ApiLoadBalancer>& lb = work.at(name.lb);
    if (e.kind == etcd::Event::Kind::kDelete) {
      lb.reset();
      out.revisions.erase(e.kv.key);
      forget_under(out.revisions, members_of_lb(prefix, name.lb));
      forget_under(out.revisions, pools_of_lb(prefix, name.lb));
      return;
    }
    auto next = lb_of(name.lb, e.kv.value);
    if (!next) return out.problems.push_back(problem(e.kv.key, next.error().message));
    // The members with keys of their own are not in the value: they stay as they are.
    for (ApiPool& pool : next->pools) {
      const ApiPool* was = lb ? pool_in(std::as_const(*lb), pool.id) : nullptr;
      if (was == nullptr) continue;
      for (const ApiMember& m : was->members) {
        if (out.revisions.contains(member_key(prefix, name.lb, pool.id, m.id))) {
          pool.members.push_back(m);
        }
      }
    }
    lb = std::move(*next);
    out.revisions.insert_or_assign(e.kv.key, e.kv.mod_revision);
  }

  void member(const KeyName& name, const etcd::Event& e) {
    std::optional<ApiLoadBalancer>& lb = work.at(name.lb);
    ApiPool* pool = lb ? pool_in(*lb, name.pool) : nullptr;
    if (e.kind == etcd::Event::Kind::kDelete) {
      out.revisions.erase(e.kv.key);
      if (pool)
        std::erase_if(pool->members, [&](const ApiMember& m) { return m.id == name.member; });
      return;
    }
    if (pool == nullptr) {
      return out.problems.push_back(problem(
          e.kv.key, fmt::format("a member of pool {} of load balancer {}, which this node does "
                                "not hold; left alone",
                                name.pool, name.lb)));
    }
    auto m = member_of(name.member, e.kv.value);
    if (!m) return out.problems.push_back(problem(e.kv.key, m.error().message));
    const auto at = std::ranges::find(pool->members, name.member, &ApiMember::id);
    if (at == pool->members.end()) {
      pool->members.push_back(std::move(*m));
    } else {
      *at = std::move(*m);
    }
    out.revisions.insert_or_assign(e.kv.key, e.kv.mod_revision);
  }
};

}  // namespace

Followed follow_events(const ApiState& state, const Revisions& revisions,
                       const std::vector<etcd::Event>& events, std::string_view prefix) {
  Followed out{.next = state, .revisions = revisions, .problems = {}, .changed = 0};
  Working work(state.loadbalancers);
  Follower follow{.out = out, .work = work, .prefix = prefix};
  // In one revision (one transaction), load balancers' keys before their members': a new load
  // balancer comes with its members.
  const std::string lbs = lb_key(prefix, "");
  std::vector<const etcd::Event*> ordered;
  for (const etcd::Event& e : events) ordered.push_back(&e);
  std::ranges::stable_sort(ordered, {}, [&](const etcd::Event* e) {
    return std::pair(e->kv.mod_revision, !e->kv.key.starts_with(lbs));
  });
  for (const etcd::Event* e : ordered) {
    const std::optional<KeyName> name = name_of(prefix, e->kv.key);
    if (!name) {
      out.problems.push_back(problem(e->kv.key, "not a key vigil writes; left alone"));
      continue;
    }
    if (name->kind == Kind::kMarker) continue;
    if (known(out.revisions, e->kv.key) >= e->kv.mod_revision) continue;  // seen, or its own
    switch (name->kind) {
      case Kind::kLoadBalancer:
        follow.load_balancer(*name, *e);
        break;
      case Kind::kMember:
        follow.member(*name, *e);
        break;
      case Kind::kPool:
        if (e->kind == etcd::Event::Kind::kDelete) {
          out.revisions.erase(e->kv.key);
        } else {
          out.revisions.insert_or_assign(e->kv.key, e->kv.mod_revision);
        }
        break;
      case Kind::kMarker:
        break;
    }
  }
  out.changed = work.carry_into(out.next.loadbalancers);
  return out;
}

namespace {

// One load balancer's keys in a whole read.
struct Held {
  const etcd::KeyValue* lb = nullptr;
  std::vector<std::pair<KeyName, const etcd::KeyValue*>> members;
};

// Nothing of it changed since this node saw it: the same revisions, and no member key gone.
bool unchanged(const Held& h, const Revisions& revisions, std::string_view prefix,
               const std::string& id) {
  if (known(revisions, h.lb->key) != h.lb->mod_revision) return false;
  for (const auto& [name, kv] : h.members) {
    if (known(revisions, kv->key) != kv->mod_revision) return false;
  }
  return static_cast<size_t>(std::ranges::distance(under(revisions, members_of_lb(prefix, id)))) ==
         h.members.size();
}

class Assembler {
 public:
  Assembler(Followed& out, const Revisions& revisions, std::string_view prefix)
      : out_(out), revisions_(revisions), prefix_(prefix) {}

  void load_balancer(const std::string& id, const Held& h);

 private:
  void keep_known(const std::string& id) {
    const std::string key = lb_key(prefix_, id);
    if (revisions_.contains(key)) out_.revisions.insert_or_assign(key, revisions_.at(key));
    const std::string members = members_of_lb(prefix_, id);
    for (const auto& [k, rev] : under(revisions_, members)) {
      out_.revisions.insert_or_assign(k, rev);
    }
  }
  void add_members(const Held& h, const ApiLoadBalancer* had, ApiLoadBalancer& lb);

  Followed& out_;
  const Revisions& revisions_;
  std::string_view prefix_;
};

void Assembler::load_balancer(const std::string& id, const Held& h) {
  LoadBalancers& lbs = out_.next.loadbalancers;
  const std::optional<size_t> at = index_of(lbs, id);
  if (at && unchanged(h, revisions_, prefix_, id)) return keep_known(id);
  auto lb = lb_of(id, h.lb->value);
  if (!lb) {
    // The last good version, if this node has one, stays: never half of a broken object.
    out_.problems.push_back(problem(h.lb->key, lb.error().message));
    if (at) keep_known(id);
    return;
  }
  add_members(h, at ? &lbs[*at] : nullptr, *lb);
  out_.revisions.insert_or_assign(h.lb->key, h.lb->mod_revision);
  // Equal to what this node holds (at start, when nothing is known): kept as it runs.
  if (at && lbs[*at] == *lb) return;
  put(lbs, std::move(*lb));
  ++out_.changed;
}

// After the members inside the value (vigil's before members had keys), in the order their keys
// were made; those made in one transaction (an import, a move to keys) in the order they were
// created.
void Assembler::add_members(const Held& h, const ApiLoadBalancer* had, ApiLoadBalancer& lb) {
  struct Got {
    const KeyName* name;
    const etcd::KeyValue* kv;
    ApiMember m;
  };
  std::vector<Got> got;
  for (const auto& [name, kv] : h.members) {
    auto m = member_of(name.member, kv->value);
    if (m) {
      got.push_back({&name, kv, std::move(*m)});
      out_.revisions.insert_or_assign(kv->key, kv->mod_revision);
      continue;
    }
    out_.problems.push_back(problem(kv->key, m.error().message));
    const ApiPool* pool = had ? pool_in(*had, name.pool) : nullptr;
    const auto last = pool ? std::ranges::find(pool->members, name.member, &ApiMember::id)
                           : std::vector<ApiMember>::const_iterator{};
    if (pool == nullptr || last == pool->members.end()) continue;
    got.push_back({&name, kv, *last});
    if (revisions_.contains(kv->key)) {
      out_.revisions.insert_or_assign(kv->key, revisions_.at(kv->key));
    }
  }
  std::ranges::stable_sort(got, {}, [](const Got& g) {
    return std::tie(g.kv->create_revision, g.m.created_at, g.m.id);
  });
  for (Got& g : got) {
    ApiPool* pool = pool_in(lb, g.name->pool);
    if (pool == nullptr) {
      out_.problems.push_back(problem(
          g.kv->key, fmt::format("a member of pool {}, which its load balancer does not hold; "
                                 "left alone",
                                 g.name->pool)));
      out_.revisions.erase(g.kv->key);
      continue;
    }
    pool->members.push_back(std::move(g.m));
  }
}

}  // namespace

Followed follow_range(const ApiState& state, const Revisions& revisions,
                      const std::vector<etcd::KeyValue>& kvs, std::string_view prefix) {
  Followed out{.next = state, .revisions = {}, .problems = {}, .changed = 0};
  std::unordered_map<std::string, Held> held;
  for (const etcd::KeyValue& kv : kvs) {
    std::optional<KeyName> name = name_of(prefix, kv.key);
    if (!name) {
      out.problems.push_back(problem(kv.key, "not a key vigil writes; left alone"));
    } else if (name->kind == Kind::kLoadBalancer) {
      held[name->lb].lb = &kv;
    } else if (name->kind == Kind::kMember) {
      const std::string lb = name->lb;
      held[lb].members.emplace_back(std::move(*name), &kv);
    } else if (name->kind == Kind::kPool) {
      out.revisions.insert_or_assign(kv.key, kv.mod_revision);
    }
  }
  LoadBalancers& lbs = out.next.loadbalancers;
  for (size_t i = lbs.size(); i-- > 0;) {
    const auto it = held.find(lbs[i].id);
    if (it == held.end() || it->second.lb == nullptr) {
      lbs.erase(i);
      ++out.changed;
    }
  }
  std::vector<std::pair<std::string, const Held*>> ordered;
  for (const auto& [id, h] : held) {
    if (h.lb != nullptr) {
      ordered.emplace_back(id, &h);
      continue;
    }
    for (const auto& [name, kv] : h.members) {
      out.problems.push_back(problem(
          kv->key,
          fmt::format("a member of load balancer {}, which etcd does not hold; left alone", id)));
    }
  }
  // etcd lists by key; the creation order is by create_revision.
  std::ranges::sort(ordered, {}, [](const auto& o) {
    return std::pair(o.second->lb->create_revision, std::string_view(o.first));
  });
  Assembler assemble(out, revisions, prefix);
  for (const auto& [id, h] : ordered) assemble.load_balancer(id, *h);
  return out;
}

}  // namespace vigil::admin
