// Pools' side of an apply: the pools it brings are adopted, those it removes dropped. Members that
// stay keep their health and sessions; the operators' overrides follow their member ids.
#include <fmt/format.h>

#include <cassert>
#include <span>
#include <utility>

#include "admin/octavia/object_store.h"
#include "base/log.h"
#include "daemon/object_diff.h"
#include "daemon/pools.h"

namespace vigil::daemon {
namespace {

bool same_monitor(const std::optional<model::HealthMonitor>& a,
                  const std::optional<model::HealthMonitor>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || model::same_checks(*a, *b);
}

// Whether `p` is what `rt` runs already: then nothing about it changes, and it costs nothing
// however many members it has. The runtime keeps the members apart from the pool's config, so
// they are compared one by one, and the rest with the members set aside for a moment.
bool same_pool(const PoolRuntime& rt, const model::Config& lb, model::Pool& p) {
  if (rt.lb_id != lb.id || rt.lb_name != lb.name || rt.members.size() != p.members.size()) {
    return false;
  }
  for (size_t i = 0; i < p.members.size(); ++i) {
    if (!(rt.members[i].config == p.members[i])) return false;
  }
  std::vector<model::Member> members = std::exchange(p.members, {});
  const bool same = p == rt.config;
  p.members = std::move(members);
  return same;
}

// What one pool's checks add to the descriptor needs.
FdNeeds check_needs_of(const PoolRuntime& p) {
  FdNeeds n;
  if (!p.config.health_monitor) return n;
  const model::HealthMonitor& m = *p.config.health_monitor;
  n.checked_members = p.members.size();
  if (model::uses_http(m.type) && m.reuse_connection) n.kept_connections = p.members.size();
  if (m.type == model::MonitorType::kTcp) n.idle_check_sockets = p.members.size();
  return n;
}

// The parts of FdNeeds the checks sum over pools; `sign` +1 adds, -1 takes away.
void tally(FdNeeds& total, const FdNeeds& part, int sign) {
  const auto apply = [sign](uint64_t& to, uint64_t by) { to = sign > 0 ? to + by : to - by; };
  apply(total.checked_members, part.checked_members);
  apply(total.kept_connections, part.kept_connections);
  apply(total.idle_check_sockets, part.idle_check_sockets);
}

}  // namespace

Pools::Changed Pools::adopt(const std::vector<model::Config*>& lbs, size_t kept,
                            const std::vector<const LoadBalancerRuntime*>& replaced) {
  Changed out;
  // `replaced` still holds the load balancers as they ran.
  const StringSet given = given_ids(std::span(lbs).subspan(kept), &model::Config::pools);
  for (const std::string& id : leaving(pools_, kept == 0, replaced, given, &model::Config::pools)) {
    auto node = pools_.extract(id);
    if (!node) continue;
    PoolRuntime& removed = *node.mapped();
    tally(check_sums_, check_needs_of(removed), -1);
    forget_members(removed, out);
    set_slot(removed.slot, nullptr);  // its sessions hold what they need and drain
    log::info("pool {}: removed", removed.config.name);
  }
  for (model::Config* lb : std::span(lbs).subspan(kept)) {
    for (model::Pool& p : lb->pools) {
      auto it = pools_.find(p.id);
      if (it != pools_.end() && same_pool(*it->second, *lb, p)) continue;  // runs as it is
      std::unique_ptr<PoolRuntime> rt = it != pools_.end() ? std::move(it->second) : nullptr;
      pools_[p.id] = adopt_pool(*lb, p, std::move(rt), out);
    }
  }
  for (const std::string& id : out.gone_members) index_.erase(id);
  for (PoolRuntime* p : out.pools) {
    for (size_t i = 0; i < p->members.size(); ++i) index_[p->members[i].id] = {p, i};
  }
  return out;
}

std::unique_ptr<PoolRuntime> Pools::adopt_pool(const model::Config& lb, const model::Pool& p,
                                               std::unique_ptr<PoolRuntime> rt, Changed& out) {
  bool monitor_changed = false;
  if (rt) {
    tally(check_sums_, check_needs_of(*rt), -1);
    monitor_changed = !same_monitor(rt->config.health_monitor, p.health_monitor);
    forget_members(*rt, out);
  } else {
    rt = std::make_unique<PoolRuntime>();
    rt->id = p.id;
    rt->slot = new_slot();
  }
  rt->lb_id = lb.id;
  rt->lb_name = lb.name;
  rt->config = p;
  rt->config.members.clear();
  const bool fresh = rt->members.empty() && !rt->snapshot;
  if (same_order(rt->members, p.members)) {
    // The members run in place (those the config added come last): moving every member, each
    // with its hour of history (about 1 KB), was most of an API member create at 1,000 members.
    for (size_t i = 0; i < rt->members.size(); ++i) {
      adopt_member(rt->members[i], p.members[i], p, monitor_changed);
    }
    // Grown as push_back grows it: a reserve to the exact size would move them all at every
    // member created.
    for (size_t i = rt->members.size(); i < p.members.size(); ++i) {
      rt->members.push_back(new_member(p.members[i]));
      resume_health(rt->members.back(), p);
    }
  } else {
    // By id, not by scan: a pool of 10,000 members is adopted on every reload.
    StringMap<size_t> old_at;
    old_at.reserve(rt->members.size());
    for (size_t i = 0; i < rt->members.size(); ++i) old_at.emplace(rt->members[i].id, i);
    std::vector<MemberRuntime> members;
    members.reserve(p.members.size());
    for (const auto& m : p.members) {
      const auto found = old_at.find(m.id);
      if (found == old_at.end()) {
        members.push_back(new_member(m));
        resume_health(members.back(), p);
        continue;
      }
      members.push_back(std::move(rt->members[found->second]));
      old_at.erase(found);  // taken: a second member of that id is new
      adopt_member(members.back(), m, p, monitor_changed);
    }
    rt->members = std::move(members);
  }
  tally(check_sums_, check_needs_of(*rt), +1);
  adopt_overrides(*rt);
  carry_out(*rt, recompute(*rt, context(), fresh));
  out.pools.push_back(rt.get());
  return rt;
}

// Whether the pool runs `given`'s first members already, in its order: then the members are
// adopted in place.
bool Pools::same_order(const std::vector<MemberRuntime>& running,
                       const std::vector<model::Member>& given) {
  if (running.size() > given.size()) return false;
  for (size_t i = 0; i < running.size(); ++i) {
    if (running[i].id != given[i].id) return false;
  }
  return true;
}

// `member`, which the pool ran, as `m` configures it now: made anew at a new address, its
// health forgotten when it is checked differently from now on.
void Pools::adopt_member(MemberRuntime& member, const model::Member& m, const model::Pool& p,
                         bool monitor_changed) const {
  if (member.config.address != m.address || member.config.port != m.port) {
    member = new_member(m);
    resume_health(member, p);
    return;
  }
  if (monitor_changed || member.config.monitor_address != m.monitor_address ||
      member.config.monitor_port != m.monitor_port || (!member.config.enabled && m.enabled)) {
    // Checked differently from now on: the old verdict no longer holds.
    member.health = model::Health::kUnchecked;
    member.successes = member.failures = 0;
    member.passive_out = false;
  }
  member.config = m;
}

// A host name is looked up by the resolver thread (names.cc), never here on the control thread:
// a dead DNS server must not stall /healthz and the checks.
MemberRuntime Pools::new_member(const model::Member& m) const {
  MemberRuntime r{.id = m.id, .config = m};
  r.state_since = wall_.now();
  if (auto literal = net::SocketAddress::from_ip(m.address, m.port)) {
    r.address = *literal;
  } else {
    r.resolve_error = fmt::format("DNS: no answer yet for \"{}\"", m.address);
  }
  return r;
}

// The store keeps every override by member id: a member kept, or made anew with the same id (a
// new address), has its override; one loaded at start-up reaches its member here.
void Pools::adopt_overrides(PoolRuntime& pool) const {
  const auto& overrides = store_.state().member_overrides;
  for (MemberRuntime& m : pool.members) {
    const auto it = overrides.find(m.id);
    m.admin_override = it == overrides.end() ? std::nullopt : std::optional(it->second);
  }
}

// A member gone from the configuration takes its override with it: were it added again later,
// it starts as the file says.
void Pools::drop_stale_overrides() {
  std::vector<std::string> stale;
  for (const auto& [id, o] : store_.state().member_overrides) {
    if (index_.contains(id)) continue;
    log::info("member {}: no longer configured; its admin override ({}) is dropped", id,
              model::describe(o));
    stale.push_back(id);
  }
  if (stale.empty()) return;
  if (auto saved = store_.drop_overrides(stale); !saved) {
    log::error("{}; the dropped overrides stay in the state file", saved.error().message);
  }
}

// Debug builds check the sums kept as pools changed by walking them.
FdNeeds Pools::check_needs() const {
#ifndef NDEBUG
  FdNeeds walked;
  for (const auto& [id, p] : pools_) tally(walked, check_needs_of(*p), +1);
  assert(walked.checked_members == check_sums_.checked_members);
  assert(walked.kept_connections == check_sums_.kept_connections);
  assert(walked.idle_check_sockets == check_sums_.idle_check_sockets);
#endif
  return check_sums_;
}

}  // namespace vigil::daemon
