// Listeners whose port another process held at start-up: vigil serves the others and binds these
// as soon as the port is free, trying again after a pause that doubles up to kLongestPause (an
// operator freeing the port waits at most that long; a port held for hours costs one bind every
// few seconds). Until then the listener is ERROR and /healthz says it is not bound.
#include <fmt/format.h>

#include <algorithm>
#include <cassert>

#include "base/log.h"
#include "daemon/listeners.h"

namespace vigil::daemon {
namespace {

constexpr Duration kFirstPause = std::chrono::milliseconds(250);
constexpr Duration kLongestPause = std::chrono::seconds(5);

}  // namespace

void Listeners::schedule_rebind() {
  // Counted as bind errors come and go: an apply beside ten thousand listeners does not look.
  assert(unbound_ == static_cast<size_t>(std::ranges::count_if(
                         listeners_, [](const auto& e) { return !e.second.bind_error.empty(); })));
  if (unbound_ == 0 || stopping_()) {
    rebind_->cancel();
    rebind_pause_ = Duration::zero();
    return;
  }
  if (rebind_->armed()) return;
  rebind_pause_ =
      rebind_pause_ == Duration::zero() ? kFirstPause : std::min(rebind_pause_ * 2, kLongestPause);
  rebind_->arm(clock_.now() + rebind_pause_);
}

void Listeners::rebind_tick() {
  if (stopping_()) return;
  std::vector<Binding> bound;
  for (auto& [id, l] : listeners_) {
    if (l.bind_error.empty()) continue;
    auto b = bind_listener(l.config);
    if (!b) {
      // Logged once, when it first failed; the count tells how long it has waited.
      ++l.bind_failures;
      l.bind_error = b.error().message;
      continue;
    }
    log::info("listener {} on {} -> pool {}: bound, its port is free now ({} failed attempts)",
              l.config.name, b->bound, l.config.pool, l.bind_failures);
    l.bound = b->bound;
    l.bind_error.clear();
    --unbound_;
    bound.push_back(std::move(*b));
  }
  if (!bound.empty()) push_(bound);
  schedule_rebind();
}

std::optional<std::string> Listeners::unbound(std::span<const LoadBalancerRuntime> lbs) const {
  std::string out;
  for (const LoadBalancerRuntime& lb : lbs) {
    for (const model::Listener& given : lb.config.listeners) {
      const ListenerRuntime& l = listeners_.at(given.id);
      if (l.bind_error.empty()) continue;
      if (!out.empty()) out += "; ";
      out += l.bind_error;
    }
  }
  if (out.empty()) return std::nullopt;
  return fmt::format("not bound: {} (retrying)", out);
}

}  // namespace vigil::daemon
