// Tickler: sends tickle ACKs (net/tickle.h) to the clients of sessions on an address this host
// lost, in a few rounds, so that each client learns from the address's new holder that its
// connection is gone and reconnects at once. Counts what it sent. Control thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "base/clock.h"
#include "base/timer.h"
#include "net/tickle.h"
#include "proxy/worker.h"

namespace vigil::daemon {

struct TickleCounts {
  uint64_t sessions = 0;  // sessions whose clients were tickled
  uint64_t sent = 0;      // tickles the kernel took
  uint64_t failed = 0;    // tickles it refused (no CAP_NET_RAW, no route)
};

class Tickler {
 public:
  // Rounds 500 ms apart: Linux answers at most one out-of-window segment per connection every
  // tcp_invalid_ratelimit (500 ms), so a second tickle sooner would be ignored; a lost tickle or
  // a lost challenge ACK gets two more chances.
  static constexpr int kRounds = 3;
  static constexpr Duration kRoundEvery = std::chrono::milliseconds(500);

  // Sends one tickle; false when it could not.
  using Send = std::function<bool(const proxy::LostSession&)>;

  Tickler(const Clock& clock, TimerSource& timers, Send send);

  // Tickles every session's client now, then kRounds - 1 more times.
  void tickle(std::vector<proxy::LostSession> sessions);
  const TickleCounts& counts() const { return counts_; }

 private:
  struct Batch {
    std::vector<proxy::LostSession> sessions;
    int rounds_left = 0;
    TimePoint next{};
  };
  void round();
  void arm();

  const Clock& clock_;
  std::unique_ptr<Timer> timer_;
  Send send_;
  std::vector<Batch> batches_;
  TickleCounts counts_;
};

// Tickles through raw sockets (net::TickleSender), opened at the first use; without CAP_NET_RAW
// every send fails, and that is logged once.
Tickler::Send raw_tickles();

}  // namespace vigil::daemon
