#include "daemon/service_notify.h"

#include <systemd/sd-daemon.h>
#include <time.h>

#include <cstdint>
#include <string>

#include "base/log.h"

namespace vigil::daemon::service {
namespace {

void notify(const std::string& state) {
  // 0: no NOTIFY_SOCKET (not run by systemd); negative: the socket is gone, which systemd
  // would notice as a missed READY or watchdog anyway. Neither is a reason to stop serving.
  if (const int r = sd_notify(0, state.c_str()); r < 0) {
    log::debug("sd_notify: error {}", -r);
  }
}

uint64_t monotonic_usec() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000 + static_cast<uint64_t>(ts.tv_nsec) / 1000;
}

}  // namespace

void ready(std::string_view status) { notify("READY=1\nSTATUS=" + std::string(status)); }

void reloading() {
  notify("RELOADING=1\nMONOTONIC_USEC=" + std::to_string(monotonic_usec()) + "\nSTATUS=reloading");
}

void stopping(std::string_view status) { notify("STOPPING=1\nSTATUS=" + std::string(status)); }

void main_pid(int pid) { notify("MAINPID=" + std::to_string(pid)); }

void watchdog() { notify("WATCHDOG=1"); }

Duration watchdog_interval() {
  uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) <= 0) return Duration::zero();
  return std::chrono::microseconds(usec);
}

}  // namespace vigil::daemon::service
