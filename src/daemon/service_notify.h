// The systemd notify protocol (sd_notify(3)) for `vigil serve` under `Type=notify`: READY=1,
// RELOADING=1, STOPPING=1, STATUS= and the watchdog. Outside systemd (no NOTIFY_SOCKET) every
// call does nothing. Control thread only.
#pragma once

#include <string_view>

#include "base/clock.h"

namespace vigil::daemon::service {

// Serving: listeners bound and the first checks run. `status` is what `systemctl status` shows.
void ready(std::string_view status);
// A reload begins (RELOADING=1 with MONOTONIC_USEC, as systemd asks); ready() ends it.
void reloading();
void stopping(std::string_view status);
// After an upgrade the new process is the service's main process: systemd must be told
// (MAINPID=; the unit needs NotifyAccess=all, since the sender is not yet the main PID).
void main_pid(int pid);
void watchdog();
// WatchdogSec= of the unit (WATCHDOG_USEC, for this process); zero when there is none.
Duration watchdog_interval();

}  // namespace vigil::daemon::service
