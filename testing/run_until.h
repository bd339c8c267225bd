// run_until(), run_ready(): how unit tests wait for an io_context: until a condition holds,
// bounded in real time, never for a fixed window. Call from the test's thread, which runs `io`.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>

namespace vigil::testing {

// Runs `io` until `done()` holds and returns true; false once `limit` of real time has passed, or
// `io` ran out of work or was stopped first with `done()` still false.
inline bool run_until(boost::asio::io_context& io, const std::function<bool()>& done,
                      std::chrono::steady_clock::duration limit = std::chrono::seconds(5)) {
  using RealTime = std::chrono::steady_clock;
  const RealTime::time_point deadline = RealTime::now() + limit;
  io.restart();
  while (!done()) {
    const RealTime::duration left = deadline - RealTime::now();
    if (left <= RealTime::duration::zero()) return false;
    // One handler at a time, so that `done()` is asked after each. None run and `io` not stopped:
    // the limit passed.
    if (io.run_one_for(left) == 0 && io.stopped()) return done();
  }
  return true;
}

// Runs every handler that is ready now, and those they make ready, without waiting for more: what
// a cancel or close queued has run, and so has the I/O that loopback sockets already have ready.
inline void run_ready(boost::asio::io_context& io) {
  io.restart();
  io.poll();
}

}  // namespace vigil::testing
