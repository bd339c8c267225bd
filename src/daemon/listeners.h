// Listeners: the running listeners and what the workers were last told of them. It binds the
// listeners an apply brings (taking the socket an upgrade handed over before binding one), adopts
// them, binds again and again a port another process held at start-up (rebind.cc), and says what
// each worker must hear. Owned by the ControlPlane, which sends that to the workers; control
// thread only.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/error.h"
#include "base/timer.h"
#include "daemon/binding.h"
#include "daemon/fd_budget.h"
#include "daemon/runtime.h"
#include "daemon/upgrade.h"
#include "model/config.h"
#include "proxy/worker.h"

namespace vigil::daemon {

class Listeners {
 public:
  using ListenerMap = std::unordered_map<std::string, ListenerRuntime>;  // by id
  // Sends the workers the sockets a retry bound (ControlPlane::push_to_workers()).
  using Push = std::function<void(std::vector<Binding>& bound)>;

  // Requires: every reference outlives this; `timers` runs on `clock`. `inherited`: the sockets
  // an upgrade handed over; `workers`: how many sockets each listener gets; `stopping`: whether
  // vigil stops, and binds no more.
  Listeners(const Clock& clock, TimerSource& timers, upgrade::Inherited& inherited, int workers,
            Push push, std::function<bool()> stopping);
  Listeners(const Listeners&) = delete;
  Listeners& operator=(const Listeners&) = delete;

  // Binds the listeners of `lbs` that are new or moved. `retry_taken`: a port another process
  // holds is no error, but a Binding with the error, which rebind.cc retries.
  Result<std::vector<Binding>> bind_changed(std::span<model::Config* const> lbs, bool retry_taken);
  // As Pools::adopt(): the first `kept` of `lbs` run on as they are; the listeners of the others
  // replace those of `replaced` (all, on a reload). `bindings` from bind_changed().
  void adopt(const std::vector<model::Config*>& lbs, size_t kept,
             const std::vector<const LoadBalancerRuntime*>& replaced,
             std::vector<Binding>& bindings);
  // What each worker (by index) must hear: the listeners removed since, and those with new
  // sockets (`bindings`, taken), new settings or a limit the budget moved. `slot_of` names the
  // pool slot of a pool id (UINT32_MAX: none).
  std::vector<proxy::ListenerChanges> changes(
      const FdBudget& budget, const FdNeeds& needs, std::vector<Binding>& bindings,
      const std::function<uint32_t(const std::string& pool_id)>& slot_of);
  // Arms the retry of unbound listeners, or stops it when there is none (rebind.cc).
  void schedule_rebind();
  void stop();

  const ListenerMap& all() const { return listeners_; }
  // The sum of their max_connections (kept as they change; debug builds walk to check it).
  uint64_t max_connections_sum() const;
  size_t logging() const { return logging_; }  // with log_connections on
  // The listeners of `lbs` not bound, with why, in their order; nullopt when all are.
  std::optional<std::string> unbound(std::span<const LoadBalancerRuntime> lbs) const;

 private:
  Result<net::Fd> listening_socket(const model::Listener& l, const net::SocketAddress& at,
                                   int worker);
  Result<Binding> bind_listener(const model::Listener& l);
  void rebind_tick();

  const Clock& clock_;
  upgrade::Inherited& inherited_;
  int workers_;
  Push push_;
  std::function<bool()> stopping_;
  ListenerMap listeners_;
  // Listeners with log_connections on, counted as adopt() sets and removes them: the connection
  // log's timer runs while there is one, and an API write does not scan them all.
  size_t logging_ = 0;
  uint64_t max_connections_sum_ = 0;
  // Listeners removed since the workers last heard (changes() tells them).
  std::vector<std::string> removed_;
  // Listeners given new settings since then, and the scale of the descriptor budget the workers
  // last heard: while that holds, changes() looks at these alone, not at every listener.
  std::vector<std::string> unpushed_;
  std::optional<FdBudget::Scale> pushed_scale_;
  std::unique_ptr<Timer> rebind_;
  Duration rebind_pause_{};  // before the next attempt; zero: no attempt failed yet
  size_t unbound_ = 0;       // listeners with a bind_error, for rebind.cc
};

}  // namespace vigil::daemon
