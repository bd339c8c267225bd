// AsioTimerSource: timers on real time, run by an io_context (steady_timer); the TimerSource that
// goes with SteadyClock. Its timers and their callbacks belong to the thread running the context.
#pragma once

#include "base/timer.h"

namespace boost::asio {
class io_context;
}

namespace vigil {

class AsioTimerSource final : public TimerSource {
 public:
  // Requires: `io` outlives the timers made here; their TimePoints come from a SteadyClock.
  explicit AsioTimerSource(boost::asio::io_context& io) : io_(io) {}

  std::unique_ptr<Timer> create_timer(std::function<void()> on_fire) override;

 private:
  boost::asio::io_context& io_;
};

}  // namespace vigil
