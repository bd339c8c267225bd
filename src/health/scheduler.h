// Scheduler: when each member's next health check starts and when a running one has timed out.
// Pure logic over an injected Clock and RNG seed (no I/O), so tests advance a ManualClock.
// Owned by the control thread's HealthChecker. Not thread-safe.
//
// The rules (config/ derives worst-case detection times from exactly these; keep them in step):
//  1. A member is due at once when added (first checks run at start-up), but members added
//     together are spaced apart by the first_check_spacing of the member before (100 µs, 1 ms
//     for checks that make a TLS handshake): three masters are all checked within a few
//     milliseconds, while ten thousand members spread their first checks over a second instead
//     of opening ten thousand sockets at once and staying bunched after, and five hundred HTTPS
//     members make their handshakes one after another instead of all at once, each slowed by
//     all the others past its timeout. A member added with its first check's time (an upgrade
//     carrying on the old process's schedule) waits for it instead, unspaced.
//  2. The next check starts at `previous start + period * (1 + u)`, u uniform in [-0.1, +0.1)
//     (model::kCheckJitterPercent) and drawn afresh for every check, so members added together
//     drift apart. The period is `fast_interval` while the member is transitioning (unchecked, or
//     its threshold counts a result that disagrees with its health), else `interval`.
//  3. Never two checks of one member at once: when a check is still running at the time the next
//     would start, the next starts when it completes.
//  4. A check still running `timeout` after its start is reported once as timed out; the caller
//     cancels it and then reports completion like any other check.
//  5. check_now() makes an idle member due at once; a running check already answers the question.
// Hence two successive starts of one member are at most max(1.1 * period, timeout) apart, plus
// the caller's reaction time.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <queue>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/string_map.h"

namespace vigil::health {

// A TCP check costs the control thread about 20 µs (bench/healthcheck): at 50 µs apart the
// first round of 30,000 members (10,000 load balancers) takes 1.5 s and a third of a core.
inline constexpr Duration kFirstCheckSpacing = std::chrono::microseconds(50);
// A full TLS handshake costs the checker about a millisecond of CPU.
inline constexpr Duration kTlsFirstCheckSpacing = std::chrono::milliseconds(1);

struct Timing {
  Duration interval{0};
  Duration fast_interval{0};
  Duration timeout{0};
  Duration first_check_spacing = kFirstCheckSpacing;
};

class Scheduler {
 public:
  // Members by slot (see add()): no id copied per check, no lookup by id to find the member.
  struct Due {
    std::vector<uint32_t> start;      // now marked running; the caller starts their checks
    std::vector<uint32_t> timed_out;  // the caller cancels these and calls completed()
  };

  // `seed` feeds the jitter; tests pass a fixed one, the daemon a random one.
  Scheduler(const Clock& clock, uint64_t seed);

  // Adds a member, due at once, and returns its slot: the number that names it in Due and
  // completed() until it is removed (then a member added later may get it). Adding an id that
  // exists restarts it, in the same slot.
  // `first`: the first check waits until then instead (an upgrade carries on another
  // process's schedule), and is not spaced from the others.
  uint32_t add(const std::string& id, const Timing& timing,
               std::optional<TimePoint> first = std::nullopt);
  void remove(std::string_view id);
  // New timings take effect from the next start; an idle member whose new period ends sooner
  // than its current plan is moved earlier (never later: a shorter interval should act now).
  void update(std::string_view id, const Timing& timing);
  void check_now(std::string_view id);

  bool contains(std::string_view id) const { return index_.contains(id); }
  bool running(std::string_view id) const;

  // The earliest due start or pending timeout; nullopt when there is nothing to wait for.
  std::optional<TimePoint> next_wakeup();

  // Members whose start is due (marked running, start time `now`) and running checks whose
  // timeout has passed at `now`, each in the order they fell due; at most `max_starts` starts,
  // the rest stay due for the next call.
  Due take_due(TimePoint now, size_t max_starts = SIZE_MAX);
  const std::string& id(uint32_t slot) const { return slots_[slot].id; }

  // The member's running check ended at `now`; `transitioning` is its threshold state after
  // recording the result. Ignored for members not running (removed or restarted meanwhile).
  void completed(uint32_t slot, TimePoint now, bool transitioning);
  void completed(std::string_view id, TimePoint now, bool transitioning);

 private:
  struct Member {
    std::string id;  // empty: a free slot
    Timing timing;
    TimePoint next_start;
    bool running = false;
    bool timeout_reported = false;
    bool fast = true;  // the period used for the next start; unchecked members are transitioning
    std::optional<TimePoint> last_start;
    uint64_t start_seq = 0;    // the queue entry that stands for next_start
    uint64_t timeout_seq = 0;  // the queue entry that stands for the running check's timeout
  };

  // What to do when. Entries are never removed from the middle: one that no longer matches its
  // member (rescheduled, completed, removed) is skipped when it comes to the top. This keeps
  // every operation O(log n), which matters with ten thousand members checked every second.
  // An entry names its member's slot, not its id: no string to copy per entry, no lookup by id
  // to find the member. Sequence numbers are never reused, so an entry of a removed member
  // never matches the slot's next occupant.
  struct Entry {
    TimePoint at;
    uint64_t seq;
    uint32_t slot;
    bool timeout;
    bool operator>(const Entry& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };

  const Member* find(std::string_view id) const;
  Duration jittered(const Member& m);
  void plan_start(uint32_t slot, TimePoint at);
  void plan_timeout(uint32_t slot, TimePoint at);
  bool current(const Entry& e) const;
  // The earliest current entry (starts and timeouts), stale ones dropped on the way: null when
  // there is none; `fifo` is the timeout FIFO it heads, null when it tops the start heap.
  struct Earliest {
    const Entry* entry = nullptr;
    std::deque<Entry>* fifo = nullptr;
  };
  Earliest earliest();
  void drop_empty_timeout_queues();

  const Clock& clock_;
  std::mt19937_64 rng_;
  std::vector<Member> slots_;
  std::vector<uint32_t> free_slots_;
  StringMap<uint32_t> index_;  // id -> slot
  // Starts: one entry per member, and those a reschedule left stale.
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
  // Timeouts, one FIFO per timeout length: checks start in time order, so each FIFO is in
  // deadline order, and a timeout costs O(1) to add and to drop. Nearly all are dropped stale
  // (the check answered first); in the heap they doubled its size and every start's cost.
  std::map<Duration, std::deque<Entry>> timeouts_;
  uint64_t seq_ = 0;
  // When the next added member's first check may start: the last one's, plus its spacing.
  std::optional<TimePoint> next_first_check_;
};

}  // namespace vigil::health
