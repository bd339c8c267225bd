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
#include "daemon/object_diff.h"
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

// The descriptor needs of what runs, from the sums kept as listeners and pools changed (so that
// an API write does not walk ten thousand of each): `checks` are Pools', `max_connections` the
// listeners'. Debug builds check the sums by walking.
FdNeeds fd_needs(const FdNeeds& checks, uint64_t max_connections,
                 const std::unordered_map<std::string, ListenerRuntime>& listeners, int workers) {
#ifndef NDEBUG
  uint64_t walked = 0;
  for (const auto& [id, l] : listeners) walked += l.config.max_connections;
  assert(walked == max_connections);
#endif
  FdNeeds n = checks;
  n.max_connections = max_connections;
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

  const Pools::Changed pools = pools_->adopt(lbs, kept, replaced);
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
  pools_->drop_stale_overrides();
  push_to_workers(*bindings);
  pools_->start_checks(pools);
  schedule_rebind();
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
    max_connections_sum_ -= static_cast<uint64_t>(node.mapped().config.max_connections);
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
          max_connections_sum_ -= static_cast<uint64_t>(rt.config.max_connections);
        }
        rt.id = l.id;
        rt.lb_id = lb->id;
        rt.config = l;
        if (rt.config.log_connections) ++logging_listeners_;
        max_connections_sum_ += static_cast<uint64_t>(rt.config.max_connections);
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
  const FdNeeds needs =
      fd_needs(pools_->check_needs(), max_connections_sum_, listeners_, worker_count_);
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
  const proxy::PoolSlots slots = pools_->slot_changes();
  for (int w = 0; w < worker_count_; ++w) {
    proxy::ListenerChanges changes{.removed = removed};
    for (ListenerRuntime* l : changed) {
      // A listener without a pool (an API listener before its pool exists) still holds its
      // port; the worker closes its connections at once.
      const auto pool = pools_->all().find(l->pool_id);
      proxy::ListenSocket s{
          .listener_id = l->id,
          .listener_name = l->config.name,
          .pool_index = pool == pools_->all().end() ? UINT32_MAX : pool->second->slot,
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
