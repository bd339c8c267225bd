#include "daemon/redirects.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>

#include "base/log.h"
#include "redirect/nft_table.h"

namespace vigil::daemon {

void Redirects::update(std::vector<redirect::ListenerFacts> facts) {
  redirect::Plan next = redirect::decide(facts);
  const bool failed = !error_.empty();
  if (next == plan_ && !(failed && clock_.now() >= retry_at_)) return;
  redirect::Plan before = std::move(plan_);
  plan_ = std::move(next);
  at_.clear();
  for (size_t i = 0; i < plan_.listeners.size(); ++i) at_[plan_.listeners[i].listener_id] = i;
  log_changes(before);
  if (plan_.rules != held_ || failed) carry_out();
}

void Redirects::carry_out() {
  if (!table_ && plan_.rules.empty()) return;  // nothing to remove from a table never made
  Result<void> done = {};
  if (!table_) {
    auto opened = open_();
    if (opened) {
      table_ = std::move(*opened);
    } else {
      done = std::unexpected(opened.error());
    }
  }
  if (done) done = table_->set(plan_.rules);
  if (done) {
    if (!error_.empty()) log::info("redirect_from: nftables programmed again");
    held_ = plan_.rules;
    error_.clear();
    retry_pause_ = kRetryAfter;
    return;
  }
  // Said once per distinct failure, not at every retry.
  if (done.error().message != error_) {
    log::error(
        "redirect_from: nftables refused ({}; it needs CAP_NET_ADMIN and nf_tables): "
        "the redirects stay as they were, tried again after {} s, then less and less often",
        done.error().message,
        std::chrono::duration_cast<std::chrono::seconds>(retry_pause_).count());
  }
  error_ = done.error().message;
  retry_at_ = clock_.now() + retry_pause_;
  retry_pause_ = std::min<Duration>(retry_pause_ * 2, kRetryAtMost);
}

void Redirects::log_changes(const redirect::Plan& before) const {
  for (const redirect::ListenerDecision& d : before.listeners) {
    if (d.wanted && !at_.contains(d.listener_id)) {
      log::info("listener {}: redirect from {} not wanted (no redirect_from any more)", d.listener,
                redirect::to_string(d.from));
    }
  }
  for (const redirect::ListenerDecision& d : plan_.listeners) {
    const auto was = std::ranges::find(before.listeners, d.listener_id,
                                       &redirect::ListenerDecision::listener_id);
    if (was != before.listeners.end() && was->wanted == d.wanted && was->from == d.from) continue;
    log::info("listener {}: redirect from {} {} ({})", d.listener, redirect::to_string(d.from),
              d.wanted ? "wanted" : "not wanted", d.why);
  }
}

namespace {

// The port of "address:port" ("[::]:9445"); 0 when there is none.
uint16_t port_of(const std::string& bound) {
  const size_t colon = bound.rfind(':');
  uint16_t port = 0;
  if (colon == std::string::npos) return 0;
  std::from_chars(bound.data() + colon + 1, bound.data() + bound.size(), port);
  return port;
}

}  // namespace

std::vector<redirect::ListenerFacts> redirect_facts(
    std::span<const model::Listener> configured,
    const std::unordered_map<std::string, ListenerRuntime>& listeners,
    const std::unordered_map<std::string, std::unique_ptr<PoolRuntime>>& pools,
    const std::optional<std::string>& stopping) {
  std::vector<redirect::ListenerFacts> out;
  for (const model::Listener& c : configured) {
    if (!c.redirect_from) continue;
    const auto running = listeners.find(c.id);
    // Running as configured: between an apply's steps the two may differ for a moment.
    if (running == listeners.end() || !running->second.config.redirect_from) continue;
    const auto& [id, l] = *running;
    redirect::ListenerFacts f{.listener_id = id,
                              .listener = l.config.name,
                              .from = *l.config.redirect_from,
                              .serving = !stopping && l.bind_error.empty() && !l.bound.empty(),
                              .port = port_of(l.bound)};
    if (stopping) {
      f.not_serving = *stopping;
    } else if (!l.bind_error.empty()) {
      f.not_serving = l.bind_error;
    } else if (l.bound.empty()) {
      f.not_serving = "not bound yet";
    }
    if (const auto pool = pools.find(l.pool_id); pool != pools.end()) {
      f.pool = pool->second->config.name;
      if (pool->second->snapshot) f.usable = pool->second->snapshot->candidates.size();
    }
    out.push_back(std::move(f));
  }
  return out;
}

Result<std::unique_ptr<redirect::RuleTable>> open_redirect_table() {
  auto table = redirect::NftTable::open("vigil_" + std::to_string(::getpid()));
  if (!table) return std::unexpected(table.error());
  log::info("redirect_from: nftables table inet {} (owned by this process)", (*table)->name());
  return std::unique_ptr<redirect::RuleTable>(std::move(*table));
}

std::optional<model::RedirectView> Redirects::view(const std::string& listener_id) const {
  const auto at = at_.find(listener_id);
  if (at == at_.end()) return std::nullopt;
  const redirect::ListenerDecision& d = plan_.listeners[at->second];
  const bool held =
      std::ranges::any_of(held_, [&](const redirect::Rule& r) { return r.from == d.from; });
  model::RedirectView v{.from = redirect::to_string(d.from), .active = held, .reason = d.why};
  if (held != d.wanted && !error_.empty()) {
    v.reason =
        (d.wanted ? "wanted (" : "not wanted (") + d.why + "), but nftables refused: " + error_;
  }
  return v;
}

}  // namespace vigil::daemon
