#include "daemon/tickler.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "base/log.h"

namespace vigil::daemon {

Tickler::Tickler(const Clock& clock, TimerSource& timers, Send send)
    : clock_(clock), timer_(timers.create_timer([this] { round(); })), send_(std::move(send)) {}

void Tickler::tickle(std::vector<proxy::LostSession> sessions) {
  if (sessions.empty()) return;
  counts_.sessions += sessions.size();
  batches_.push_back(
      {.sessions = std::move(sessions), .rounds_left = kRounds, .next = clock_.now()});
  round();
}

void Tickler::round() {
  const TimePoint now = clock_.now();
  for (Batch& b : batches_) {
    if (b.next > now) continue;
    for (const proxy::LostSession& s : b.sessions) {
      if (send_(s)) {
        ++counts_.sent;
      } else {
        ++counts_.failed;
      }
    }
    --b.rounds_left;
    b.next = now + kRoundEvery;
  }
  std::erase_if(batches_, [](const Batch& b) { return b.rounds_left <= 0; });
  arm();
}

void Tickler::arm() {
  if (batches_.empty()) return;
  timer_->arm(std::ranges::min_element(batches_, {}, &Batch::next)->next);
}

Tickler::Send raw_tickles() {
  struct State {
    std::optional<net::TickleSender> sender;
    bool refused = false;
  };
  auto state = std::make_shared<State>();
  return [state](const proxy::LostSession& s) {
    if (!state->sender && !state->refused) {
      if (auto opened = net::TickleSender::open()) {
        state->sender.emplace(std::move(*opened));
      } else {
        state->refused = true;
        log::warn(
            "cannot tickle the clients of sessions on a lost address ({}; vigil needs "
            "CAP_NET_RAW): they notice only when they next send, or by their own timers",
            opened.error().message);
      }
    }
    return state->sender && state->sender->send(s.local, s.client);
  };
}

}  // namespace vigil::daemon
