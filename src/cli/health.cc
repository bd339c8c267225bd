// `vigil health [--exit-code]`: the local daemon's /readyz in one line, for keepalived's
// vrrp_script and for people. Fast by design: one request, one second in all, no token.
// `vigil health --track-file FILE`: the same, kept in a file for keepalived's track_file; with
// `--vips-file`, also the load balancers' addresses, for keepalived or BIRD to include.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <thread>

#include "cli/client.h"
#include "cli/commands.h"
#include "cli/health_track.h"
#include "cli/vips_keeper.h"

namespace vigil::cli {

// keepalived runs the script every second: an answer later than that is no answer.
constexpr std::chrono::milliseconds kHealthTimeout{1000};

std::string health_line(int status, std::string_view body) {
  std::istringstream in{std::string(body)};
  std::string first;
  std::getline(in, first);
  std::string details;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) details += (details.empty() ? "" : "; ") + line;
  }
  if ((status == 200 || status == 503) && !first.empty()) {
    return details.empty() ? first : first + ": " + details;
  }
  return "not serving: /readyz answered HTTP " + std::to_string(status);
}

int run_health(const ClientOptions& options, bool exit_code, std::ostream& out, std::ostream& err) {
  auto url = parse_admin_url(options.admin_url);
  if (!url) {
    err << "vigil health: " << url.error().message << "\n";
    return 2;
  }
  auto reply = http_get(*url, "/readyz", "", kHealthTimeout);
  if (!reply) {
    out << "not serving: cannot reach vigil at " << options.admin_url << ": "
        << reply.error().message << "\n";
    return exit_code ? 1 : 2;
  }
  out << health_line(reply->status, reply->body) << "\n";
  if (!exit_code) return 0;
  return reply->status == 200 ? 0 : 1;
}

namespace {

struct Look {
  Sight sight;
  std::string line;       // what `vigil health` would print
  bool answered = false;  // an HTTP answer, ready or not: vigil runs and can say what it holds
};

std::string unreachable(const std::string& admin_url, const std::string& why) {
  return "not serving: cannot reach vigil at " + admin_url + ": " + why;
}

Look check(const AdminUrl& url, const std::string& admin_url) {
  auto reply = http_get(url, "/readyz", "", kHealthTimeout);
  if (!reply) {
    const int code = reply.error().code;
    const Sight sight = code == ECONNREFUSED ? Sight::kGone
                        : code == ETIMEDOUT  ? Sight::kNotReady
                                             : Sight::kBroken;
    return {sight, unreachable(admin_url, reply.error().message)};
  }
  return {reply->status == 200 ? Sight::kReady : Sight::kNotReady,
          health_line(reply->status, reply->body), true};
}

Look hold(const AdminUrl& url, const std::string& admin_url, std::chrono::milliseconds limit,
          std::chrono::milliseconds& held) {
  const auto start = std::chrono::steady_clock::now();
  const HoldEnd end = hold_connection(url, limit);
  held = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start);
  switch (end) {
    case HoldEnd::kRefused:
      return {Sight::kGone, unreachable(admin_url, "Connection refused")};
    case HoldEnd::kClosed:
      return {Sight::kClosed, ""};
    case HoldEnd::kQuiet:
      break;
  }
  return {Sight::kQuiet, ""};
}

// Renamed into place, so that keepalived (inotify: IN_MOVED_TO) reads a whole value. No fsync:
// the file lives in /run, and a value lost in a crash is written again by the next tracker; a
// sync here would only delay the news when it matters.
Result<void> write_track_file(const std::string& path, const char* value) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return fail("cannot write " + tmp + ": " + std::strerror(errno));
  const std::string text = std::string(value) + "\n";
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const std::string why = written ? "" : std::strerror(errno);
  ::close(fd);
  if (!written) return fail("cannot write " + tmp + ": " + why);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    return fail("cannot rename " + tmp + " onto " + path + ": " + std::strerror(errno));
  }
  return {};
}

}  // namespace

int run_health_track(const ClientOptions& options, const std::string& file,
                     const VipsOptions& vips_options, std::ostream& out, std::ostream& err) {
  auto url = parse_admin_url(options.admin_url);
  if (!url) {
    err << "vigil health: " << url.error().message << "\n";
    return 2;
  }
  const TrackPolicy policy;
  TrackState state;
  std::chrono::milliseconds held{0};
  VipsKeeper vips(vips_options, *url, options.token, out, err);
  Look look = check(*url, options.admin_url);
  vips.saw(look.answered);
  for (;;) {
    const TrackStep step = next_track_step(state, look.sight, held, policy);
    if (look.sight == Sight::kNotReady || look.sight == Sight::kBroken) {
      out << "check failed, " << step.state.failures << " in a row: " << look.line << std::endl;
    }
    if (step.write && file.empty()) {
      out << look.line << std::endl;  // only the VIP file is kept: the judgement, for the log
    } else if (step.write) {
      const char* value = *step.write ? "0" : "1";
      if (auto written = write_track_file(file, value); !written) {
        err << "vigil health: " << written.error().message << "\n";
        return 1;
      }
      out << "wrote " << value << " to " << file << ": " << look.line << std::endl;
    }
    state = step.state;
    if (step.next == Next::kHold) {
      look = hold(*url, options.admin_url, step.after, held);
    } else {
      std::this_thread::sleep_for(step.after);
      look = check(*url, options.admin_url);
      vips.saw(look.answered);
    }
  }
}

}  // namespace vigil::cli
