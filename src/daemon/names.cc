// Members given by host name: looked up by the resolver thread (net/resolver.h), so that a dead
// DNS server never stalls the control thread (/healthz, checks, API writes). The answer comes
// back here as a message and is applied like any other change: the pool is recomputed and its
// snapshot published. Until then, or when the name does not resolve, the member gets no traffic
// and says why ("DNS: ..."); a failed name is asked again every kRetryEvery.
#include <fmt/format.h>

#include "base/log.h"
#include "daemon/pools.h"

namespace vigil::daemon {
namespace {

constexpr Duration kRetryEvery = std::chrono::seconds(5);

}  // namespace

void Pools::start_names() { resolver_ = std::make_unique<net::Resolver>(post_); }

void Pools::resolve_names() {
  std::vector<PoolRuntime*> pools;
  pools.reserve(pools_.size());
  for (auto& [id, pool] : pools_) pools.push_back(pool.get());
  resolve_names(pools);
}

// start_checks() asks for the pools an apply changed only: a kept pool's names are asked already,
// or again by the retry timer.
void Pools::resolve_names(const std::vector<PoolRuntime*>& pools) {
  if (stopped_ || !resolver_) return;
  bool retry = false;
  for (PoolRuntime* pool : pools) {
    for (MemberRuntime& m : pool->members) {
      if (m.address || m.resolving) continue;
      const bool queued =
          resolver_->resolve(m.config.address, m.config.port,
                             [this, id = m.id, host = m.config.address,
                              port = m.config.port](Result<std::vector<net::SocketAddress>> a) {
                               on_resolved(id, host, port, std::move(a));
                             });
      m.resolving = queued;
      if (!queued) {
        m.resolve_error = "DNS: too many names wait for an answer; asked again later";
        retry = true;
      }
    }
  }
  if (retry && !names_retry_->armed()) names_retry_->arm(clock_.now() + kRetryEvery);
}

void Pools::on_resolved(const std::string& member_id, const std::string& host, uint16_t port,
                        Result<std::vector<net::SocketAddress>> addresses) {
  const auto it = index_.find(member_id);
  if (stopped_ || it == index_.end()) return;  // removed since
  PoolRuntime& pool = *it->second.first;
  MemberRuntime& m = pool.members[it->second.second];
  // Moved to another name or port since: that one has its own lookup.
  if (m.address || m.config.address != host || m.config.port != port) return;
  m.resolving = false;
  if (!addresses) {
    const std::string error = "DNS: " + addresses.error().message;
    if (error != m.resolve_error) {
      log::warn("pool {} member {}: {}; it gets no traffic; asked again every {} s",
                pool.config.name, m.config.name, error,
                std::chrono::duration_cast<std::chrono::seconds>(kRetryEvery).count());
    }
    m.resolve_error = error;
    if (!names_retry_->armed()) names_retry_->arm(clock_.now() + kRetryEvery);
    return;
  }
  m.address = addresses->front();
  m.resolve_error.clear();
  log::info("pool {} member {}: {} is {}", pool.config.name, m.config.name, host,
            m.address->to_string());
  if (carry_out(pool, recompute(pool, context()))) publish();
}

}  // namespace vigil::daemon
