// Applying a configuration to the running daemon: at start-up, on reload and on API writes. New
// listeners are bound before anything changes, so a bind error leaves the running configuration
// as it was; only at start-up is a port taken by another process no error (rebind.cc retries it).
// Members that stay keep their health and sessions.
#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <span>
#include <utility>

#include "admin/octavia/object_store.h"
#include "admin/server.h"
#include "base/log.h"
#include "daemon/bind_check.h"
#include "daemon/binding.h"
#include "daemon/control_plane.h"
#include "daemon/fd_budget.h"
#include "health/checker.h"
#include "model/ids.h"
#include "net/cidr.h"
#include "net/socket.h"

namespace vigil::daemon {

namespace {

// Objects from a config file have no ids of their own: they are derived from their names, so
// that they stay the same across restarts and reloads.
void assign_ids(model::Config& c) {
  if (c.id.empty()) c.id = model::load_balancer_id(c.name);
  for (auto& l : c.listeners) {
    if (l.id.empty()) l.id = model::listener_id(c.name, l.name);
  }
  for (auto& p : c.pools) {
    if (p.id.empty()) p.id = model::pool_id(c.name, p.name);
    if (p.health_monitor && p.health_monitor->id.empty()) {
      p.health_monitor->id = model::health_monitor_id(c.name, p.name);
    }
    for (auto& m : p.members) {
      if (m.id.empty()) m.id = model::member_id(c.name, p.name, m.name);
    }
  }
}

bool same_monitor(const std::optional<model::HealthMonitor>& a,
                  const std::optional<model::HealthMonitor>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || model::same_checks(*a, *b);
}

// A host name is looked up by the resolver thread (names.cc), never here on the control thread:
// a dead DNS server must not stall /healthz and the checks.
MemberRuntime new_member(const model::Member& m) {
  MemberRuntime r{.id = m.id, .config = m};
  r.state_since = std::chrono::system_clock::now();
  if (auto literal = net::SocketAddress::from_ip(m.address, m.port)) {
    r.address = *literal;
  } else {
    r.resolve_error = fmt::format("DNS: no answer yet for \"{}\"", m.address);
  }
  return r;
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
FdNeeds check_needs(const PoolRuntime& p) {
  FdNeeds n;
  if (!p.config.health_monitor) return n;
  const model::HealthMonitor& m = *p.config.health_monitor;
  n.checked_members = p.members.size();
  if (model::uses_http(m.type) && m.reuse_connection) n.kept_connections = p.members.size();
  if (m.type == model::MonitorType::kTcp) n.idle_check_sockets = p.members.size();
  return n;
}

// The parts of FdNeeds that are sums over listeners and pools; `sign` +1 adds, -1 takes away.
void tally(FdNeeds& total, const FdNeeds& part, int sign) {
  const auto apply = [sign](uint64_t& to, uint64_t by) { to = sign > 0 ? to + by : to - by; };
  apply(total.max_connections, part.max_connections);
  apply(total.checked_members, part.checked_members);
  apply(total.kept_connections, part.kept_connections);
  apply(total.idle_check_sockets, part.idle_check_sockets);
}

// The descriptor needs of what runs, from the sums kept as listeners and pools changed (so that
// an API write does not walk ten thousand of each). Debug builds check the sums by walking.
FdNeeds fd_needs(
    const FdNeeds& sums, const std::unordered_map<std::string, ListenerRuntime>& listeners,
    [[maybe_unused]] const std::unordered_map<std::string, std::unique_ptr<PoolRuntime>>& pools,
    int workers) {
#ifndef NDEBUG
  FdNeeds walked;
  for (const auto& [id, l] : listeners) walked.max_connections += l.config.max_connections;
  for (const auto& [id, p] : pools) tally(walked, check_needs(*p), +1);
  assert(walked.max_connections == sums.max_connections);
  assert(walked.checked_members == sums.checked_members);
  assert(walked.kept_connections == sums.kept_connections);
  assert(walked.idle_check_sockets == sums.idle_check_sockets);
#endif
  FdNeeds n = sums;
  n.listeners = listeners.size();
  n.workers = static_cast<uint64_t>(workers);
  n.admin_connections = admin::Options{}.max_connections;
  n.reserve = reserve_from_environment();
  n.idle_check_sockets = std::min(n.idle_check_sockets, idle_check_sockets());
  return n;
}

// Validated when the config was loaded: a source that does not parse cannot be here.
std::vector<net::Cidr> trusted_sources(const model::Listener& l) {
  std::vector<net::Cidr> out;
  for (const std::string& s : l.trusted_sources) {
    if (auto cidr = net::Cidr::parse(s)) out.push_back(*cidr);
  }
  return out;
}

// The ids of the objects (`objects`: &Config::pools or &Config::listeners) the load balancers
// given anew bring.
template <typename Object>
StringSet given_ids(std::span<model::Config* const> given,
                    std::vector<Object> model::Config::*objects) {
  StringSet out;
  for (const model::Config* lb : given) {
    for (const Object& o : lb->*objects) out.insert(o.id);
  }
  return out;
}

// The running objects an apply removes: on a reload, any that `given` lacks; on an API write, only
// those of the load balancers it replaces, so that the others are not even looked at.
template <typename Running, typename Object>
std::vector<std::string> leaving(const Running& running, bool reload,
                                 const std::vector<const LoadBalancerRuntime*>& replaced,
                                 const StringSet& given,
                                 std::vector<Object> model::Config::*objects) {
  std::vector<std::string> out;
  if (reload) {
    for (const auto& [id, object] : running) {
      if (!given.contains(id)) out.push_back(id);
    }
    return out;
  }
  for (const LoadBalancerRuntime* lb : replaced) {
    for (const Object& o : lb->config.*objects) {
      if (!given.contains(o.id)) out.push_back(o.id);
    }
  }
  return out;
}

}  // namespace

Result<void> ControlPlane::apply(std::vector<model::Config> lbs) {
  return apply_changes(std::move(lbs), {}, /*api=*/false);
}

void ControlPlane::index_lbs() {
  lb_at_.clear();
  for (size_t i = 0; i < lbs_.size(); ++i) lb_at_[lbs_[i].config.id] = i;
}

Result<void> ControlPlane::apply_changes(std::vector<model::Config> changed,
                                         const std::vector<std::string>& removed, bool api) {
  // A graceful stop closed the listeners: binding new ones would take connections it cannot keep.
  if (stopping()) return fail("vigil is stopping; the configuration can no longer change");
  for (auto& lb : changed) assign_ids(lb);
  // The file's load balancer, when it stays as it runs, is neither copied nor compared.
  std::vector<model::Config*> lbs;
  if (api) lbs.push_back(&lbs_.front().config);
  for (auto& lb : changed) lbs.push_back(&lb);
  const size_t kept = api ? 1 : 0;
  // The running load balancers this apply replaces: every one on a reload; on an API write those
  // it changes or removes.
  std::vector<const LoadBalancerRuntime*> replaced;
  if (api) {
    std::vector<size_t> at;  // in the order they run, as on a reload
    const auto running = [&](std::string_view id) {
      if (const auto i = lb_at_.find(id); i != lb_at_.end() && i->second >= kept) {
        at.push_back(i->second);
      }
    };
    for (const auto& lb : changed) running(lb.id);
    for (const std::string& id : removed) running(id);
    std::ranges::sort(at);
    for (size_t i : at) replaced.push_back(&lbs_[i]);
  } else {
    for (size_t i = kept; i < lbs_.size(); ++i) replaced.push_back(&lbs_[i]);
  }
  auto file_binds = check_binds(lbs, api ? file_binds_ : nullptr);
  if (!file_binds) return std::unexpected(file_binds.error());
  if (api) {
    if (auto clash = check_running_binds(std::span(lbs).subspan(kept),
                                         std::span(lbs_).subspan(kept), replaced);
        !clash) {
      return clash;
    }
  }
  // At start-up a port taken by another process must not keep the other listeners down; later,
  // the operator who asked for the change hears of it at once and nothing changes.
  auto bindings = bind_changed(std::span(lbs).subspan(kept), /*retry_taken=*/!started_);
  if (!bindings) return std::unexpected(bindings.error());
  started_ = true;
  file_binds_ = std::move(*file_binds);
  drain_connection_logs();  // while the members its records name are all still known

  const PoolsChanged pools = adopt_pools(lbs, kept, replaced);
  adopt_listeners(lbs, kept, replaced, *bindings);
  if (!api) lbs_.clear();
  if (!removed.empty()) {
    std::erase_if(lbs_, [&](const LoadBalancerRuntime& lb) {
      return lb.config.origin != model::Origin::kFile &&
             std::ranges::find(removed, lb.config.id) != removed.end();
    });
  }
  if (!api || !removed.empty()) index_lbs();
  for (auto& lb : changed) {
    LoadBalancerRuntime r{.config = std::move(lb)};
    for (auto& p : r.config.pools) {
      // The file's members live in their MemberRuntime; a reload reads the file again. (The
      // API's stay: a reload applies them as they are.)
      if (r.config.origin == model::Origin::kFile) std::vector<model::Member>().swap(p.members);
    }
    // An API write's load balancer keeps its place: the status lists them in creation order.
    const auto at = api ? lb_at_.find(r.config.id) : lb_at_.end();
    if (at != lb_at_.end() && at->second >= kept) {
      lbs_[at->second] = std::move(r);
    } else {
      lb_at_[r.config.id] = lbs_.size();
      lbs_.push_back(std::move(r));
    }
  }
  reindex(pools);
  drop_stale_overrides();
  push_to_workers(*bindings);
  update_checks(pools);
  schedule_rebind();
  resolve_names(pools.pools);
  schedule_connection_log();
  return {};
}

Result<ControlPlane::Binding> ControlPlane::bind_listener(const model::Listener& l) {
  const std::string host = l.bind_address.empty() ? "::" : l.bind_address;
  auto address = net::SocketAddress::from_ip(host, l.port);
  if (!address) return fail(fmt::format("listener {}: {}", l.name, address.error().message));
  Binding b{.listener_id = l.id};
  for (int w = 0; w < worker_count_; ++w) {
    auto fd = listening_socket(l, *address, w);
    if (!fd) {
      return std::unexpected(
          Error{.message = fmt::format("listener {}: {}", l.name, fd.error().message),
                .code = fd.error().code});
    }
    if (w == 0) {
      // With port 0 the kernel picked one; the other workers' sockets join it.
      *address = *net::local_address(fd->get());
      b.bound = address->to_string();
    }
    b.fds.push_back(std::move(*fd));
  }
  return b;
}

Result<std::vector<ControlPlane::Binding>> ControlPlane::bind_changed(
    std::span<model::Config* const> lbs, bool retry_taken) {
  std::vector<Binding> out;
  for (const model::Config* lb : lbs) {
    for (const auto& l : lb->listeners) {
      auto it = listeners_.find(l.id);
      if (it != listeners_.end() && it->second.config.bind_address == l.bind_address &&
          it->second.config.port == l.port) {
        continue;  // keeps its sockets, or its place in rebind.cc's retries
      }
      auto b = bind_listener(l);
      if (!b && retry_taken && b.error().code == EADDRINUSE) {
        out.push_back({.listener_id = l.id, .error = b.error().message});
        continue;
      }
      if (!b) return std::unexpected(b.error());
      out.push_back(std::move(*b));
    }
  }
  return out;
}

ControlPlane::PoolsChanged ControlPlane::adopt_pools(
    const std::vector<model::Config*>& lbs, size_t kept,
    const std::vector<const LoadBalancerRuntime*>& replaced) {
  PoolsChanged out;
  // lbs_ still holds the load balancers as they ran.
  const StringSet given = given_ids(std::span(lbs).subspan(kept), &model::Config::pools);
  for (const std::string& id : leaving(pools_, kept == 0, replaced, given, &model::Config::pools)) {
    auto node = pools_.extract(id);
    if (!node) continue;
    PoolRuntime& removed = *node.mapped();
    tally(needs_sums_, check_needs(removed), -1);
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
  return out;
}

std::unique_ptr<PoolRuntime> ControlPlane::adopt_pool(const model::Config& lb, const model::Pool& p,
                                                      std::unique_ptr<PoolRuntime> rt,
                                                      PoolsChanged& out) {
  bool monitor_changed = false;
  if (rt) {
    tally(needs_sums_, check_needs(*rt), -1);
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
  // By id, not by scan: a pool of 10,000 members is adopted on every reload.
  StringMap<size_t> old_at;
  old_at.reserve(rt->members.size());
  for (size_t i = 0; i < rt->members.size(); ++i) old_at.emplace(rt->members[i].id, i);
  std::vector<MemberRuntime> members;
  members.reserve(p.members.size());
  for (const auto& m : p.members) {
    const auto found = old_at.find(m.id);
    MemberRuntime* old = nullptr;
    if (found != old_at.end()) {
      old = &rt->members[found->second];
      old_at.erase(found);  // taken: a second member of that id is new
    }
    if (old == nullptr || old->config.address != m.address || old->config.port != m.port) {
      members.push_back(new_member(m));
      resume_health(members.back(), p);
      continue;
    }
    MemberRuntime kept = std::move(*old);
    if (monitor_changed || kept.config.monitor_address != m.monitor_address ||
        kept.config.monitor_port != m.monitor_port || (!kept.config.enabled && m.enabled)) {
      // Checked differently from now on: the old verdict no longer holds.
      kept.health = model::Health::kUnchecked;
      kept.successes = kept.failures = 0;
      kept.passive_out = false;
    }
    kept.config = m;
    members.push_back(std::move(kept));
  }
  const bool fresh = rt->members.empty() && !rt->snapshot;
  rt->members = std::move(members);
  tally(needs_sums_, check_needs(*rt), +1);
  adopt_overrides(*rt);
  carry_out(*rt, recompute(*rt, context(), fresh));
  out.pools.push_back(rt.get());
  return rt;
}

// The store keeps every override by member id: a member kept, or made anew with the same id (a
// new address), has its override; one loaded at start-up reaches its member here.
void ControlPlane::adopt_overrides(PoolRuntime& pool) const {
  if (!store_) return;
  const auto& overrides = store_->state().member_overrides;
  for (MemberRuntime& m : pool.members) {
    const auto it = overrides.find(m.id);
    m.admin_override = it == overrides.end() ? std::nullopt : std::optional(it->second);
  }
}

// A member gone from the configuration takes its override with it: were it added again later,
// it starts as the file says.
void ControlPlane::drop_stale_overrides() {
  if (!store_) return;
  std::vector<std::string> stale;
  for (const auto& [id, o] : store_->state().member_overrides) {
    if (index_.contains(id)) continue;
    log::info("member {}: no longer configured; its admin override ({}) is dropped", id,
              model::describe(o));
    stale.push_back(id);
  }
  if (stale.empty()) return;
  if (auto saved = store_->drop_overrides(stale); !saved) {
    log::error("{}; the dropped overrides stay in the state file", saved.error().message);
  }
}

void ControlPlane::adopt_listeners(const std::vector<model::Config*>& lbs, size_t kept,
                                   const std::vector<const LoadBalancerRuntime*>& replaced,
                                   std::vector<Binding>& bindings) {
  const StringMap<Binding*> bound = Binding::by_listener(bindings);
  // As adopt_pools(): the file's listeners run on untouched through an API write. A listener
  // whose port was taken at start-up has no binding here; rebind.cc binds it.
  const StringSet given = given_ids(std::span(lbs).subspan(kept), &model::Config::listeners);
  for (const std::string& id :
       leaving(listeners_, kept == 0, replaced, given, &model::Config::listeners)) {
    auto node = listeners_.extract(id);
    if (!node) continue;
    if (node.mapped().config.log_connections) --logging_listeners_;
    needs_sums_.max_connections -= static_cast<uint64_t>(node.mapped().config.max_connections);
    if (!node.mapped().bind_error.empty()) --unbound_listeners_;
    log::info("listener {} on {}: removed", node.mapped().config.name, node.mapped().bound);
    removed_listeners_.push_back(id);
  }
  for (const model::Config* lb : std::span(lbs).subspan(kept)) {
    StringMap<const std::string*> pool_ids;
    for (const auto& p : lb->pools) pool_ids.emplace(p.name, &p.id);
    for (const auto& l : lb->listeners) {
      const auto [at, added] = listeners_.try_emplace(l.id);
      ListenerRuntime& rt = at->second;
      const auto p = pool_ids.find(l.pool);
      const std::string_view pool_id = p == pool_ids.end() ? std::string_view{} : *p->second;
      // The API gives every load balancer it holds on each write: one whose settings and pool
      // are as they run sends nothing to the workers (new sockets, below, still do).
      if (added || rt.config != l || rt.pool_id != pool_id) {
        if (!added) {
          if (rt.config.log_connections) --logging_listeners_;
          needs_sums_.max_connections -= static_cast<uint64_t>(rt.config.max_connections);
        }
        rt.id = l.id;
        rt.lb_id = lb->id;
        rt.config = l;
        if (rt.config.log_connections) ++logging_listeners_;
        needs_sums_.max_connections += static_cast<uint64_t>(rt.config.max_connections);
        rt.pushed_max_connections.reset();  // its settings go to the workers again
        unpushed_listeners_.push_back(l.id);
        rt.pool_id = pool_id;
      }
      if (auto found = bound.find(l.id); found != bound.end()) {
        const Binding& b = *found->second;
        rt.bound = b.bound;
        if (rt.bind_error.empty() != b.error.empty()) {
          unbound_listeners_ = b.error.empty() ? unbound_listeners_ - 1 : unbound_listeners_ + 1;
        }
        rt.bind_error = b.error;
        if (b.error.empty()) {
          log::info("listener {} on {} -> pool {}", l.name, rt.bound, l.pool);
        } else {
          ++rt.bind_failures;
          log::error("{}; the other listeners serve, and this one is bound once the port is free",
                     b.error);
        }
      }
    }
  }
}

void ControlPlane::push_to_workers(std::vector<Binding>& bindings) {
  const FdNeeds needs = fd_needs(needs_sums_, listeners_, pools_, worker_count_);
  const FdBudget budget = plan_fds(fd_limit(), needs);
  const std::string said = describe_lowering(budget, needs).value_or("");
  if (said != fd_budget_said_ && !said.empty()) log::warn("{}", said);
  fd_budget_said_ = said;
  const StringMap<Binding*> bound = Binding::by_listener(bindings);
  // Only what changed goes to the workers: new listeners, new sockets, new settings, and the
  // limits the budget moved. A member created beside ten thousand listeners sends none of them,
  // and while the budget's scale holds, only the listeners given settings or sockets are looked at.
  std::vector<ListenerRuntime*> changed;
  const auto consider = [&](const std::string& id, ListenerRuntime& l) {
    const int max_connections = budget.effective(l.config.max_connections, needs.max_connections);
    if (l.pushed_max_connections == max_connections && !bound.contains(id)) return;
    l.pushed_max_connections = max_connections;
    changed.push_back(&l);
  };
  const FdBudget::Scale scale = budget.scale(needs.max_connections);
  if (pushed_scale_ != scale) {
    for (auto& [id, l] : listeners_) consider(id, l);
  } else {
    StringSet named(unpushed_listeners_.begin(), unpushed_listeners_.end());
    for (const auto& [id, b] : bound) named.emplace(id);
    for (const std::string& id : named) {
      if (auto it = listeners_.find(id); it != listeners_.end()) consider(id, it->second);
    }
  }
  pushed_scale_ = scale;
  unpushed_listeners_.clear();
  const std::vector<std::string> removed = std::exchange(removed_listeners_, {});
  const proxy::PoolSlots slots = slot_changes();
  for (int w = 0; w < worker_count_; ++w) {
    proxy::ListenerChanges changes{.removed = removed};
    for (ListenerRuntime* l : changed) {
      // A listener without a pool (an API listener before its pool exists) still holds its
      // port; the worker closes its connections at once.
      const auto pool = pools_.find(l->pool_id);
      proxy::ListenSocket s{.listener_id = l->id,
                            .listener_name = l->config.name,
                            .pool_index = pool == pools_.end() ? UINT32_MAX : pool->second->slot,
                            .max_connections = *l->pushed_max_connections,
                            .idle_timeout = l->config.idle_timeout,
                            .client_dead_peer = net::dead_peer_options(l->config.dead_peer_timeout),
                            .accept_proxy = l->config.accept_proxy,
                            .trusted_sources = trusted_sources(l->config),
                            .proxy_header_timeout = l->config.proxy_header_timeout,
                            .stats = l->stats,
                            .log_connections = l->config.log_connections};
      if (auto b = bound.find(l->id); b != bound.end() && b->second->error.empty())
        s.fd = std::move(b->second->fds[static_cast<size_t>(w)]);
      l->worker_fds.resize(static_cast<size_t>(worker_count_), -1);
      if (s.fd.valid()) l->worker_fds[static_cast<size_t>(w)] = s.fd.get();
      changes.set.push_back(std::move(s));
    }
    workers_[static_cast<size_t>(w)]->update(slots, std::move(changes));
  }
}

}  // namespace vigil::daemon
