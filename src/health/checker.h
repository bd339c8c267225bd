// HealthChecker: runs the health checks of every monitored member: a Scheduler says when, a
// Prober checks, a Threshold per member decides up or down, and a callback hears every result.
// Control thread only: every method and the callback run on the thread running the io_context.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/string_map.h"
#include "base/timer.h"
#include "health/probe.h"
#include "health/scheduler.h"
#include "health/threshold.h"
#include "model/check_result.h"
#include "model/config.h"
#include "model/status.h"

namespace boost::asio {
class io_context;
}

namespace vigil::health {

struct Target {
  std::string member_id;
  // The caller's own number for the member, handed back in each of its Events: the caller finds
  // its member without a lookup by id. set_targets() updates it for members that stay.
  uint32_t tag = 0;
  model::HealthMonitor monitor;
  std::string address;  // the member's monitor_address when set, else its address
  uint16_t port = 0;    // the member's monitor_port when set, else its port
  // The PROXY header each check starts with (health_monitor.send_proxy); off: none.
  model::ProxyProtocol proxy_header = model::ProxyProtocol::kOff;
  // A member new to this checker that another process checked until now (an upgrade): its
  // threshold starts from that state and its first check waits `first_check_in` instead of
  // running at once. Ignored for members the checker has already; not part of the target's
  // identity.
  struct Resumed {
    model::Health health = model::Health::kUnchecked;
    int successes = 0;
    int failures = 0;
    Duration first_check_in{};
  };
  std::optional<Resumed> resumed;
};

// One completed check of one member, after its threshold recorded it.
struct Event {
  std::string_view member_id;  // valid during the callback
  uint32_t tag = 0;            // the member's Target::tag
  model::CheckResult result;
  model::Health health;    // after this result
  model::Health previous;  // before it; differs when changed
  bool changed = false;
  int successes = 0;  // consecutive, including this result
  int failures = 0;
};

// A check started by confirm_silence() has had no byte from the member by the time it asked.
struct Silence {
  std::string_view member_id;  // valid during the callback
  uint32_t tag = 0;            // the member's Target::tag
};

class HealthChecker {
 public:
  using Callback = std::function<void(const Event&)>;
  using SilenceCallback = std::function<void(const Silence&)>;

  // Requires: `io`, `clock` and `timers` outlive the checker, and `timers` runs on `clock`
  // (AsioTimerSource with SteadyClock; in tests a ManualTimerSource with its ManualClock). `io`
  // runs the probes' I/O; `timers` says when checks start and time out. `seed` feeds the
  // scheduler's jitter; `sockets` makes the checks' sockets (tests make it fail).
  HealthChecker(boost::asio::io_context& io, const Clock& clock, TimerSource& timers,
                Callback on_result, uint64_t seed = std::random_device{}(),
                CheckSockets sockets = {});
  ~HealthChecker();  // cancels running probes; the callback is not called again
  HealthChecker(const HealthChecker&) = delete;
  HealthChecker& operator=(const HealthChecker&) = delete;

  // Replaces the set of checked members. A member whose id, monitor (its source location
  // aside), address and port are unchanged keeps its state and schedule; a changed one starts
  // over (unchecked, checked at once); a removed one stops, its running probe cancelled.
  void set_targets(std::vector<Target> targets);
  // Changes some members only: those in `set` are added or updated as set_targets() does, those
  // in `unset` and not in `set` stop, and every other member goes on as it was (a write to one
  // pool leaves the other pools' checks alone, at a cost that does not grow with them).
  void change_targets(std::vector<Target> set, const std::vector<std::string>& unset);

  // Checks the member at once unless a check is already running (passive-failure confirmation),
  // on a new connection: the member's kept connection, if any, is closed, and a check already
  // running does not keep its own.
  void check_now(const std::string& member_id);

  // check_now(), to confirm that the member has gone silent: when the check it starts (or the
  // one already running) has had no byte from the member by `by`, on_silence() hears it then,
  // instead of when that check times out. The check goes on to its own end and counts for the
  // thresholds like any other. Only for monitors whose first answer comes from below the
  // member's application (TCP: the connect; TLS-HELLO and HTTPS: the TLS handshake); an HTTP
  // check's first byte waits for the application's verdict, so there the result decides alone.
  void confirm_silence(const std::string& member_id, TimePoint by);
  // Where confirm_silence() reports; none: it only checks.
  void on_silence(SilenceCallback callback) { on_silence_ = std::move(callback); }

  // kUnchecked for unknown members and before the first result.
  model::Health health(const std::string& member_id) const;

  // Checks that could not be made for want of a local resource (model::Outcome::kLocalError),
  // since the start. They reach the callback but leave the member's threshold as it was.
  uint64_t local_failures() const { return local_failures_; }

  // Cancels every probe and the timer for good; later calls do nothing. May be called from the
  // callback. The callback may also call set_targets() and check_now(); it must not destroy the
  // checker.
  void stop();

 private:
  // Its monitor, address, port and header are in `probe_target` only, and the monitor is shared
  // by all members checked alike (monitors_): at 30,000 members the copies were 25 MB.
  struct Member {
    std::string_view id;                              // members_'s key (its nodes do not move)
    uint32_t tag = 0;                                 // Target::tag
    std::shared_ptr<const ProbeTarget> probe_target;  // what each check of it is given
    Threshold threshold;
    ProbeHandle probe;
    uint64_t generation = 0;      // tells a probe of this member from one of a replaced member
    uint32_t slot = 0;            // its number in the scheduler, and in by_slot_
    uint64_t checks_started = 0;  // tells the check a silence was asked of from later ones
  };
  // A confirm_silence() waiting for its time: the check it asks of is the member's
  // `check`-th, so that a check started just before `at` is not taken for a silent one.
  struct PendingSilence {
    TimePoint at;
    uint32_t slot = 0;
    uint64_t generation = 0;
    uint64_t check = 0;
  };

  void add(Target target);
  void remove(StringMap<Member>::iterator member);
  void arm();
  void on_wakeup();
  void on_silence_due();
  Member* member_at(uint32_t slot) { return slot < by_slot_.size() ? by_slot_[slot] : nullptr; }
  void start_check(Member& member);
  void on_probe_done(uint32_t slot, uint64_t generation, model::CheckResult result);
  void record(Member& member, model::CheckResult result);
  // Logs the first local failure of an episode, and its end.
  void note_local(const Member& member, const model::CheckResult& result);

  const Clock& clock_;
  Callback on_result_;
  SilenceCallback on_silence_;
  Scheduler scheduler_;
  std::mt19937_64 rng_;
  Prober prober_;
  std::unique_ptr<Timer> timer_;          // the wakeup
  std::unique_ptr<Timer> silence_timer_;  // the earliest of silences_
  std::vector<PendingSilence> silences_;  // a handful at most: one per member being confirmed
  std::optional<TimePoint> armed_for_;    // when the pending wakeup fires; empty when none is
  TimePoint last_wakeup_{};
  StringMap<Member> members_;
  // One monitor per monitor id, shared by the members' probe targets while they check with it.
  StringMap<std::weak_ptr<model::HealthMonitor>> monitors_;
  size_t monitors_after_sweep_ = 0;  // monitors_.size() after the last sweep of expired ones
  std::shared_ptr<model::HealthMonitor> shared_monitor(const model::HealthMonitor& m);
  // members_ by scheduler slot (unordered_map nodes don't move): a check's start and result
  // find their member without hashing its id, ten thousand times a second.
  std::vector<Member*> by_slot_;
  uint64_t next_generation_ = 1;
  uint64_t local_failures_ = 0;
  uint64_t local_in_episode_ = 0;  // local failures since the last check that could be made
  bool stopped_ = false;
  // Handlers hold a weak_ptr to this: a handler already queued when the checker is destroyed
  // must not touch it.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace vigil::health
