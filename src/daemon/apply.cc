// Applying a configuration to the running daemon: at start-up, on reload and on API writes. New
// listeners are bound before anything changes, so a bind error leaves the running configuration
// as it was; only at start-up is a port taken by another process no error (rebind.cc retries it).
// Members that stay keep their health and sessions.
#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <span>
#include <utility>

#include "admin/octavia/object_store.h"
#include "admin/server.h"
#include "base/log.h"
#include "daemon/bind_check.h"
#include "daemon/control_plane.h"
#include "daemon/fd_budget.h"
#include "health/checker.h"
#include "model/ids.h"
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

// The descriptor needs of what runs, from the sums Pools and Listeners keep as they change (so
// that an API write does not walk ten thousand of each).
FdNeeds fd_needs(const FdNeeds& checks, const Listeners& listeners, int workers) {
  FdNeeds n = checks;
  n.max_connections = listeners.max_connections_sum();
  n.listeners = listeners.all().size();
  n.workers = static_cast<uint64_t>(workers);
  n.admin_connections = admin::Options{}.max_connections;
  n.reserve = reserve_from_environment();
  n.idle_check_sockets = std::min(n.idle_check_sockets, idle_check_sockets());
  return n;
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
  auto bindings = listeners_->bind_changed(std::span(lbs).subspan(kept), /*retry_taken=*/!started_);
  if (!bindings) return std::unexpected(bindings.error());
  started_ = true;
  file_binds_ = std::move(*file_binds);
  drain_connection_logs();  // while the members its records name are all still known

  const Pools::Changed pools = pools_->adopt(lbs, kept, replaced);
  listeners_->adopt(lbs, kept, replaced, *bindings);
  if (!api) lbs_.clear();
  if (!removed.empty()) {
    std::erase_if(lbs_, [&](const LoadBalancerRuntime& lb) {
      return lb.config.origin != model::Origin::kFile &&
             std::ranges::find(removed, lb.config.id) != removed.end();
    });
  }
  if (!api || !removed.empty()) index_lbs();
  for (auto& lb : changed) {
    LoadBalancerRuntime r{.config = std::move(lb), .order = ++last_order_};
    for (auto& p : r.config.pools) {
      // The file's members live in their MemberRuntime; a reload reads the file again. (The
      // API's stay: a reload applies them as they are.)
      if (r.config.origin == model::Origin::kFile) std::vector<model::Member>().swap(p.members);
    }
    // An API write's load balancer keeps its place: the status lists them in creation order.
    const auto at = api ? lb_at_.find(r.config.id) : lb_at_.end();
    if (at != lb_at_.end() && at->second >= kept) {
      r.order = lbs_[at->second].order;
      lbs_[at->second] = std::move(r);
    } else {
      lb_at_[r.config.id] = lbs_.size();
      lbs_.push_back(std::move(r));
    }
  }
  pools_->drop_stale_overrides();
  push_to_workers(*bindings);
  pools_->start_checks(pools);
  listeners_->schedule_rebind();
  schedule_connection_log();
  return {};
}

void ControlPlane::push_to_workers(std::vector<Binding>& bindings) {
  const FdNeeds needs = fd_needs(pools_->check_needs(), *listeners_, worker_count_);
  const FdBudget budget = plan_fds(fd_limit(), needs);
  const uint64_t lowered_under = budget.lowered ? budget.limit : 0;
  if (lowered_under != 0 && lowered_under != fd_lowered_under_) {
    log::warn("{}", describe_lowering(budget, needs).value_or(""));
  }
  fd_lowered_under_ = lowered_under;
  std::vector<proxy::ListenerChanges> changes =
      listeners_->changes(budget, needs, bindings, [this](const std::string& pool_id) {
        const auto pool = pools_->all().find(pool_id);
        return pool == pools_->all().end() ? UINT32_MAX : pool->second->slot;
      });
  const proxy::PoolSlots slots = pools_->slot_changes();
  for (size_t w = 0; w < workers_.size(); ++w) workers_[w]->update(slots, std::move(changes[w]));
  update_redirects();
}

void ControlPlane::update_redirects() {
  if (!redirects_) return;
  const std::optional<std::string> stopping =
      this->stopping() ? std::optional<std::string>("vigil is stopping") : std::nullopt;
  if (lbs_.empty()) return;
  redirects_->update(
      redirect_facts(lbs_.front().config.listeners, listeners_->all(), pools_->all(), stopping));
}

}  // namespace vigil::daemon
