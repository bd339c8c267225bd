// The shell of `vigil health --vips-file`: asks the daemon's /v1/status, keeps the file that
// health_vips.h decides on (renamed into place) and runs the reload command in the background,
// one at a time. Owned by run_health_track(); the CLI's one thread.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <ostream>
#include <string>

#include "cli/client.h"
#include "cli/health_vips.h"

namespace vigil::cli {

class VipsKeeper {
 public:
  // Reads what FILE holds already, so that a restarted watcher neither rewrites nor reloads an
  // unchanged set; a missing FILE is written empty at once (BIRD refuses to start with an
  // `include` of a missing file). Logs to `out`; an unwritable FILE goes to `err`.
  VipsKeeper(VipsOptions options, std::ostream& out, std::ostream& err);

  // Call after each check; it acts about once a second, and asks the daemon only when
  // `answered` (vigil just answered the check, ready or not), so that a slow /v1/status never
  // delays the track file's news.
  void tick(const AdminUrl& url, const std::string& token, bool answered);

 private:
  // The file /v1/status asks for; none when vigil gave no usable answer (logged once).
  std::optional<std::string> wanted_text(const AdminUrl& url, const std::string& token);
  void reap();
  void start_reload();

  VipsOptions options_;
  std::ostream& out_;
  std::ostream& err_;
  VipsState state_;
  std::chrono::steady_clock::time_point polled_{};
  std::string last_problem_;  // logged once until it changes
  pid_t reload_pid_ = -1;
};

}  // namespace vigil::cli
