// Gathering: the answers of several workers to one question, collected on the control thread
// without waiting there: `done` runs once, with every answer, or with an error once the
// deadline passes first (a wedged worker must not hang an admin request). Control thread only.
#pragma once

#include <fmt/format.h>

#include <functional>
#include <memory>
#include <vector>

#include "base/clock.h"
#include "base/error.h"
#include "base/timer.h"

namespace vigil::daemon {

// Longer than any loop turn of a serving worker: the liveness check calls 2 s silent.
inline constexpr Duration kWorkersAnswerWithin = std::chrono::seconds(2);

template <class Part>
struct Gathering {
  std::vector<Part> parts;
  size_t pending = 0;
  bool over = false;
  std::unique_ptr<Timer> deadline;
  std::function<void(Result<std::vector<Part>>)> done;

  void add(Part p) {
    if (over) return;
    parts.push_back(std::move(p));
    if (--pending == 0) finish(std::move(parts));
  }
  void finish(Result<std::vector<Part>> r) {
    over = true;
    if (deadline) deadline->cancel();
    done(std::move(r));
  }
};

// Expects `pending` answers within `within` of now. With `pending` 0, `done` runs at once.
// Requires: `timers` (on `clock`) outlives the gathering.
template <class Part>
std::shared_ptr<Gathering<Part>> gathering(size_t pending, const Clock& clock, TimerSource& timers,
                                           std::function<void(Result<std::vector<Part>>)> done,
                                           Duration within = kWorkersAnswerWithin) {
  auto g = std::make_shared<Gathering<Part>>();
  g->pending = pending;
  g->done = std::move(done);
  if (pending == 0) {
    g->finish(std::vector<Part>{});
    return g;
  }
  // Weak: the gathering owns its timer; the workers' answers keep it alive until they are in.
  g->deadline = timers.create_timer([weak = std::weak_ptr<Gathering<Part>>(g), within] {
    auto self = weak.lock();
    if (!self || self->over) return;
    self->finish(
        fail(fmt::format("{} of the workers did not answer within {} ms", self->pending,
                         std::chrono::duration_cast<std::chrono::milliseconds>(within).count())));
  });
  g->deadline->arm(clock.now() + within);
  return g;
}

}  // namespace vigil::daemon
