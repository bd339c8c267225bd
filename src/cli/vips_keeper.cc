#include "cli/vips_keeper.h"

#include <spawn.h>
#include <sys/wait.h>

#include <condition_variable>
#include <cstring>
#include <mutex>

#include "base/file.h"
#include "cli/status_doc.h"

extern char** environ;

namespace vigil::cli {

namespace {
constexpr std::chrono::seconds kPollInterval{1};
// BIRD reads its config as the user `bird`; the file holds addresses, nothing secret.
constexpr mode_t kFileMode = 0644;
// /v1/status of a few thousand load balancers takes milliseconds; a second means a stuck vigil,
// which the track loop judges: the file stays.
constexpr std::chrono::milliseconds kPollTimeout{1000};
}  // namespace

VipsKeeper::VipsKeeper(VipsOptions options, AdminUrl url, std::string token, std::ostream& out,
                       std::ostream& err)
    : options_(std::move(options)),
      url_(std::move(url)),
      token_(std::move(token)),
      out_(out),
      err_(err) {
  if (options_.file.empty()) return;
  if (auto text = read_file(options_.file)) {
    state_.written = *text;
  } else {
    const std::string empty = vips_file_text({}, options_.format);
    if (auto written = write_file_atomic(options_.file, empty, kFileMode); !written) {
      err_ << "vigil health: " << written.error().message << "\n";
    } else {
      state_.written = empty;
      say("wrote " + options_.file + " without addresses, until vigil answers");
    }
  }
  thread_ = std::jthread([this](const std::stop_token& stop) { run(stop); });
}

void VipsKeeper::run(const std::stop_token& stop) {
  std::mutex mutex;
  std::condition_variable_any wake;
  std::unique_lock lock(mutex);
  while (!stop.stop_requested()) {
    tick();
    wake.wait_for(lock, stop, kPollInterval, [] { return false; });
  }
}

void VipsKeeper::tick() {
  reap();
  // Without an answer the file stays, but a failed reload is still tried again.
  const std::optional<std::string> text =
      answered_.load() ? wanted_text() : std::optional<std::string>();
  const VipsStep step = next_vips_step(state_, text, reload_pid_ >= 0);
  if (step.write) {
    // With fsync, unlike the track file: the set changes rarely, and after a crash keepalived
    // or BIRD must not start from a torn or empty file.
    if (auto written = write_file_atomic(options_.file, *step.write, kFileMode); !written) {
      say("vigil health: " + written.error().message + "; again in 1 s");
      return;  // the state keeps the old text: the next round tries again
    }
    say("wrote " + options_.file + ":\n" + *step.write);
  }
  state_ = step.state;
  if (step.reload) start_reload();
}

void VipsKeeper::say(const std::string& line) {
  // One write per line: the track loop logs to the same stream from its own thread.
  const std::string text = line.ends_with('\n') ? line : line + "\n";
  out_ << text << std::flush;
}

std::optional<std::string> VipsKeeper::wanted_text() {
  std::optional<std::string> text;
  std::string problem;
  auto reply = http_get(url_, "/v1/status", token_, kPollTimeout);
  if (!reply) {
    problem = "cannot ask vigil for its load balancers: " + reply.error().message;
  } else if (reply->status != 200) {
    problem = "vigil answered /v1/status with HTTP " + std::to_string(reply->status) +
              (reply->status == 401 ? " (give --token-file)" : "");
  } else if (auto doc = parse_status(reply->body); !doc) {
    problem = doc.error().message;
  } else {
    const VipSet vips = served_vips(*doc, options_.format);
    for (const std::string& line : vips.skipped) problem += (problem.empty() ? "" : "; ") + line;
    text = vips_file_text(vips.addresses, options_.format);
  }
  if (problem != last_problem_ && !problem.empty()) {
    say("vips: " + problem + (text ? "" : "; " + options_.file + " kept as it is"));
  }
  last_problem_ = problem;
  return text;
}

void VipsKeeper::start_reload() {
  state_.reload_due = false;
  if (options_.reload.empty()) return;
  const char* argv[] = {"/bin/sh", "-c", options_.reload.c_str(), nullptr};
  pid_t pid = -1;
  const int failed =
      ::posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ);
  if (failed != 0) {
    say("vips: cannot run `" + options_.reload + "`: " + std::strerror(failed) + "; again in 1 s");
    state_.reload_due = true;
    return;
  }
  reload_pid_ = pid;
}

void VipsKeeper::reap() {
  if (reload_pid_ < 0) return;
  int status = 0;
  if (::waitpid(reload_pid_, &status, WNOHANG) != reload_pid_) return;
  reload_pid_ = -1;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    say("vips: ran `" + options_.reload + "`");
    return;
  }
  const std::string how = WIFEXITED(status) ? "exited " + std::to_string(WEXITSTATUS(status))
                                            : "ended by signal " + std::to_string(WTERMSIG(status));
  say("vips: `" + options_.reload + "` " + how + "; again in 1 s");
  state_.reload_due = true;
}

}  // namespace vigil::cli
