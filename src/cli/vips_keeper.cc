#include "cli/vips_keeper.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cstring>

#include "base/file.h"
#include "cli/status_doc.h"

extern char** environ;

namespace vigil::cli {

namespace {
// About once a second, at the pace of the checks (every 0.5 s while vigil serves).
constexpr std::chrono::milliseconds kPollInterval{900};
// /v1/status of a few thousand load balancers takes milliseconds; a second means a stuck vigil,
// which the track file's checks judge.
constexpr std::chrono::milliseconds kPollTimeout{1000};
}  // namespace

VipsKeeper::VipsKeeper(VipsOptions options, std::ostream& out, std::ostream& err)
    : options_(std::move(options)), out_(out), err_(err) {
  if (options_.file.empty()) return;
  if (auto text = read_file(options_.file)) {
    state_.written = *text;
    return;
  }
  const std::string empty = vips_file_text({}, options_.format);
  if (auto written = write_file_atomic(options_.file, empty); !written) {
    err_ << "vigil health: " << written.error().message << "\n";
    return;
  }
  state_.written = empty;
  out_ << "wrote " << options_.file << " without addresses, until vigil answers" << std::endl;
}

void VipsKeeper::tick(const AdminUrl& url, const std::string& token, bool answered) {
  if (options_.file.empty()) return;
  reap();
  const auto now = std::chrono::steady_clock::now();
  if (now - polled_ < kPollInterval) return;
  polled_ = now;
  // Without an answer the file stays, but a failed reload is still tried again.
  const std::optional<std::string> text =
      answered ? wanted_text(url, token) : std::optional<std::string>();
  const VipsStep step = next_vips_step(state_, text, reload_pid_ >= 0);
  if (step.write) {
    // With fsync, unlike the track file: the set changes rarely, and after a crash keepalived
    // or BIRD must not start from a torn or empty file.
    if (auto written = write_file_atomic(options_.file, *step.write); !written) {
      err_ << "vigil health: " << written.error().message << "\n";
      return;  // the state keeps the old text: the next poll tries again
    }
    out_ << "wrote " << options_.file << ":" << std::endl << *step.write << std::flush;
  }
  state_ = step.state;
  if (step.reload) start_reload();
}

std::optional<std::string> VipsKeeper::wanted_text(const AdminUrl& url, const std::string& token) {
  std::optional<std::string> text;
  std::string problem;
  auto reply = http_get(url, "/v1/status", token, kPollTimeout);
  if (!reply) {
    problem = "cannot ask vigil for its load balancers: " + reply.error().message;
  } else if (reply->status != 200) {
    problem = "vigil answered /v1/status with HTTP " + std::to_string(reply->status) +
              (reply->status == 401 ? " (give --token-file)" : "");
  } else if (auto doc = parse_status(reply->body); !doc) {
    problem = doc.error().message;
  } else {
    const VipSet vips = served_vips(*doc);
    for (const std::string& line : vips.skipped) problem += (problem.empty() ? "" : "; ") + line;
    text = vips_file_text(vips.addresses, options_.format);
  }
  if (problem != last_problem_ && !problem.empty()) {
    out_ << "vips: " << problem << (text ? "" : "; " + options_.file + " kept as it is")
         << std::endl;
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
    out_ << "vips: cannot run `" << options_.reload << "`: " << std::strerror(failed)
         << "; again in 1 s" << std::endl;
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
    out_ << "vips: ran `" << options_.reload << "`" << std::endl;
    return;
  }
  const std::string how = WIFEXITED(status) ? "exited " + std::to_string(WEXITSTATUS(status))
                                            : "ended by signal " + std::to_string(WTERMSIG(status));
  out_ << "vips: `" << options_.reload << "` " << how << "; again in 1 s" << std::endl;
  state_.reload_due = true;
}

}  // namespace vigil::cli
