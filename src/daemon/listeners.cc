// Listeners: binding, adopting, and what the workers must hear of them.
#include "daemon/listeners.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <utility>

#include "base/log.h"
#include "daemon/object_diff.h"
#include "net/cidr.h"
#include "net/cidr_table.h"
#include "net/socket.h"

namespace vigil::daemon {
namespace {

// Validated when the config was loaded: a source that does not parse cannot be here.
std::vector<net::Cidr> trusted_sources(const model::Listener& l) {
  std::vector<net::Cidr> out;
  for (const std::string& s : l.trusted_sources) {
    if (auto cidr = net::Cidr::parse(s)) out.push_back(*cidr);
  }
  return out;
}

// The session's one idle timer: the client side's, or the member side's when shorter.
Duration session_idle_timeout(const model::Listener& l) {
  if (l.member_idle_timeout <= Duration::zero()) return l.idle_timeout;
  return std::min(l.idle_timeout, l.member_idle_timeout);
}

// As trusted_sources; null for no list, which lets every client in.
std::shared_ptr<const net::CidrTable> allowed_sources(const model::Listener& l) {
  if (l.allowed_cidrs.empty()) return nullptr;
  std::vector<net::Cidr> cidrs;
  for (const std::string& s : l.allowed_cidrs) {
    if (auto cidr = net::Cidr::parse(s)) cidrs.push_back(*cidr);
  }
  return std::make_shared<const net::CidrTable>(cidrs);
}

}  // namespace

Listeners::Listeners(const Clock& clock, TimerSource& timers, upgrade::Inherited& inherited,
                     int workers, Push push, std::function<bool()> stopping)
    : clock_(clock),
      inherited_(inherited),
      workers_(workers),
      push_(std::move(push)),
      stopping_(std::move(stopping)),
      rebind_(timers.create_timer([this] { rebind_tick(); })) {}

void Listeners::stop() { rebind_->cancel(); }

uint64_t Listeners::max_connections_sum() const {
#ifndef NDEBUG
  uint64_t walked = 0;
  for (const auto& [id, l] : listeners_) walked += l.config.max_connections;
  assert(walked == max_connections_sum_);
#endif
  return max_connections_sum_;
}

Result<net::Fd> Listeners::listening_socket(const model::Listener& l, const net::SocketAddress& at,
                                            int worker) {
  if (auto fd = inherited_.take(l.id, worker)) {
    // Kept only when the config still asks for that port: a listener moved is bound anew.
    auto local = net::local_address(fd->get());
    if (local && (l.port == 0 || local->port() == l.port)) return std::move(*fd);
    log::info("upgrade: listener {} changed its port; its inherited socket is closed", l.name);
  }
  return net::listen_tcp(at, {.freebind = l.freebind});
}

Result<Binding> Listeners::bind_listener(const model::Listener& l) {
  const std::string host = l.bind_address.empty() ? "::" : l.bind_address;
  auto address = net::SocketAddress::from_ip(host, l.port);
  if (!address) return fail(fmt::format("listener {}: {}", l.name, address.error().message));
  Binding b{.listener_id = l.id};
  for (int w = 0; w < workers_; ++w) {
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

Result<std::vector<Binding>> Listeners::bind_changed(std::span<model::Config* const> lbs,
                                                     bool retry_taken) {
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

void Listeners::adopt(const std::vector<model::Config*>& lbs, size_t kept,
                      const std::vector<const LoadBalancerRuntime*>& replaced,
                      std::vector<Binding>& bindings) {
  const StringMap<Binding*> bound = Binding::by_listener(bindings);
  // As Pools::adopt(): the file's listeners run on untouched through an API write. A listener
  // whose port was taken at start-up has no binding here; rebind.cc binds it.
  const StringSet given = given_ids(std::span(lbs).subspan(kept), &model::Config::listeners);
  for (const std::string& id :
       leaving(listeners_, kept == 0, replaced, given, &model::Config::listeners)) {
    auto node = listeners_.extract(id);
    if (!node) continue;
    if (node.mapped().config.log_connections) --logging_;
    max_connections_sum_ -= static_cast<uint64_t>(node.mapped().config.max_connections);
    if (!node.mapped().bind_error.empty()) --unbound_;
    log::info("listener {} on {}: removed", node.mapped().config.name, node.mapped().bound);
    removed_.push_back(id);
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
          if (rt.config.log_connections) --logging_;
          max_connections_sum_ -= static_cast<uint64_t>(rt.config.max_connections);
        }
        rt.id = l.id;
        rt.lb_id = lb->id;
        rt.config = l;
        if (rt.config.log_connections) ++logging_;
        max_connections_sum_ += static_cast<uint64_t>(rt.config.max_connections);
        rt.pushed_max_connections.reset();  // its settings go to the workers again
        unpushed_.push_back(l.id);
        rt.pool_id = pool_id;
      }
      if (auto found = bound.find(l.id); found != bound.end()) {
        const Binding& b = *found->second;
        rt.bound = b.bound;
        if (rt.bind_error.empty() != b.error.empty()) {
          unbound_ = b.error.empty() ? unbound_ - 1 : unbound_ + 1;
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

std::vector<proxy::ListenerChanges> Listeners::changes(
    const FdBudget& budget, const FdNeeds& needs, std::vector<Binding>& bindings,
    const std::function<uint32_t(const std::string& pool_id)>& slot_of) {
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
    StringSet named(unpushed_.begin(), unpushed_.end());
    for (const auto& [id, b] : bound) named.emplace(id);
    for (const std::string& id : named) {
      if (auto it = listeners_.find(id); it != listeners_.end()) consider(id, it->second);
    }
  }
  pushed_scale_ = scale;
  unpushed_.clear();
  const std::vector<std::string> removed = std::exchange(removed_, {});
  // Built once per change, shared by every worker's copy of the listener.
  std::vector<std::shared_ptr<const net::CidrTable>> tables;
  for (const ListenerRuntime* l : changed) tables.push_back(allowed_sources(l->config));
  std::vector<proxy::ListenerChanges> out;
  out.reserve(static_cast<size_t>(workers_));
  for (int w = 0; w < workers_; ++w) {
    proxy::ListenerChanges changes{.removed = removed};
    for (size_t i = 0; i < changed.size(); ++i) {
      ListenerRuntime* l = changed[i];
      // A listener without a pool (an API listener before its pool exists) still holds its
      // port; the worker closes its connections at once.
      proxy::ListenSocket s{.listener_id = l->id,
                            .listener_name = l->config.name,
                            .pool_index = slot_of(l->pool_id),
                            .max_connections = *l->pushed_max_connections,
                            .queue_at_limit = l->config.at_limit == model::AtLimit::kQueue,
                            .idle_timeout = session_idle_timeout(l->config),
                            .client_dead_peer = net::dead_peer_options(l->config.dead_peer_timeout),
                            .accept_proxy = l->config.accept_proxy,
                            .trusted_sources = trusted_sources(l->config),
                            .proxy_header_timeout = l->config.proxy_header_timeout,
                            .allowed_sources = tables[i],
                            .stats = l->stats,
                            .log_connections = l->config.log_connections};
      if (auto b = bound.find(l->id); b != bound.end() && b->second->error.empty())
        s.fd = std::move(b->second->fds[static_cast<size_t>(w)]);
      l->worker_fds.resize(static_cast<size_t>(workers_), -1);
      if (s.fd.valid()) l->worker_fds[static_cast<size_t>(w)] = s.fd.get();
      changes.set.push_back(std::move(s));
    }
    out.push_back(std::move(changes));
  }
  return out;
}

}  // namespace vigil::daemon
