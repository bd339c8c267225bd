// The shell of `vigil health --vips-file`: asks the daemon's /v1/status about once a second,
// keeps the file that health_vips.h decides on and runs the reload command in the background,
// one at a time. It runs on a thread of its own, so that a slow /v1/status or a slow disk never
// delays the track file's news; the track loop only tells it, through saw(), whether vigil
// answered its last check. Created and destroyed by run_health_track().
#pragma once

#include <sys/types.h>

#include <atomic>
#include <optional>
#include <ostream>
#include <stop_token>
#include <string>
#include <thread>

#include "cli/client.h"
#include "cli/health_vips.h"

namespace vigil::cli {

class VipsKeeper {
 public:
  // Reads what FILE holds already, so that a restarted watcher neither rewrites nor reloads an
  // unchanged set; a missing FILE is written empty at once (BIRD refuses to start with an
  // `include` of a missing file, keepalived's config test too). Does nothing without FILE.
  VipsKeeper(VipsOptions options, AdminUrl url, std::string token, std::ostream& out,
             std::ostream& err);

  // Any thread: whether vigil answered the last check (ready or not). Only then is /v1/status
  // asked; without an answer the file stays as it is.
  void saw(bool answered) { answered_.store(answered); }

 private:
  void run(const std::stop_token& stop);
  void tick();
  // The file /v1/status asks for; none when vigil gave no usable answer (logged once).
  std::optional<std::string> wanted_text();
  void reap();
  void start_reload();
  void say(const std::string& line);

  const VipsOptions options_;
  const AdminUrl url_;
  const std::string token_;
  std::ostream& out_;
  std::ostream& err_;
  std::atomic<bool> answered_{false};
  // The keeper's thread only, after the constructor.
  VipsState state_;
  std::string last_problem_;  // logged once until it changes
  pid_t reload_pid_ = -1;
  std::jthread thread_;  // last: stopped and joined before the rest goes
};

}  // namespace vigil::cli
