// The status page's recent transitions kept across a restart and `vigil upgrade`: a small JSON
// file beside admin.state_file (`<state_file>.transitions`), written after the ring changed, at
// most once per kWriteEvery and never from the data plane, by an atomic rename; read back at
// start. A damaged file is a warning and an empty ring, never a refusal to start: the ring is
// for people reading the page, not state anything depends on. Control thread only.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/error.h"
#include "base/timer.h"
#include "model/status_tree.h"

namespace vigil::daemon {

// The file beside `state_file`; empty when there is no state file (nothing is kept then).
std::string transitions_path(const std::string& state_file);

std::string encode_transitions(const std::deque<model::Transition>& ring);
// Every entry typed as it should be, or an error that names what is wrong: a half-trusted file
// would put a stranger's text on the page. The newest `max` entries, oldest first.
Result<std::vector<model::Transition>> decode_transitions(std::string_view text, size_t max);

// What `path` keeps; none when it does not exist yet; a warning (logged) and none when it cannot
// be read or decoded, or is larger than any ring this vigil writes.
std::vector<model::Transition> load_transitions(const std::string& path, size_t max);

class TransitionFile {
 public:
  // A write a second at most: a flapping member changes the ring ten times a second.
  static constexpr Duration kWriteEvery = std::chrono::seconds(1);
  using Read = std::function<const std::deque<model::Transition>&()>;

  // Requires: `clock`, `timers` and what `read` reads outlive this; `timers` runs on `clock`.
  TransitionFile(std::string path, const Clock& clock, TimerSource& timers, Read read);

  // The ring changed: written within kWriteEvery.
  void changed();
  // Written now, if it changed since the last write (a stop; an upgrade about to start).
  void flush();
  // While held, nothing is written: the new process of an upgrade owns the file (it read it at
  // its start and writes its own ring). release(): the upgrade failed, this one owns it again.
  void hold();
  void release();

  const std::string& path() const { return path_; }

 private:
  void write();

  std::string path_;
  const Clock& clock_;
  Read read_;
  std::unique_ptr<Timer> timer_;
  TimePoint last_write_{};
  bool dirty_ = false;
  bool held_ = false;
};

}  // namespace vigil::daemon
