// Prober: runs one health-check attempt (TCP connect, TLS handshake, or one HTTP(S) request)
// against one endpoint and reports a typed model::CheckResult. Control thread only: start(), the
// handles and the callbacks all run on the thread that runs the io_context.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/clock.h"
#include "health/local_failure.h"
#include "health/tls_context.h"
#include "model/check_result.h"
#include "model/config.h"

namespace boost::asio {
class io_context;
}

namespace vigil::health {

class KeptConnection;
class TlsResumption;

struct ProbeTarget {
  // Owns `monitor`: the checker's members checked alike share one (HealthChecker::
  // shared_monitor), so probes only read it; a target made without one has its own.
  std::shared_ptr<model::HealthMonitor> monitor_owner = std::make_shared<model::HealthMonitor>();
  model::HealthMonitor& monitor = *monitor_owner;
  std::string address;  // an IP literal (v4, v6) or a host name, resolved at every attempt
  uint16_t port = 0;
  // A PROXY header written first on every new connection (v1 UNKNOWN or v2 LOCAL: the check's
  // own addresses, as HAProxy's check-send-proxy); off: none.
  model::ProxyProtocol proxy_header = model::ProxyProtocol::kOff;
  // HTTPS: where checks of this target keep their TLS session for the next one; null: every
  // check makes a full handshake.
  std::shared_ptr<TlsResumption> resumption;
  // HTTP and HTTPS with reuse_connection: where a passing check leaves its connection for the
  // next one; null: every check connects afresh.
  std::shared_ptr<KeptConnection> kept;
};

using ProbeCallback = std::function<void(model::CheckResult)>;

// What a ProbeHandle controls: one probe in flight.
class RunningProbe {
 public:
  virtual ~RunningProbe() = default;
  virtual void cancel() = 0;
  virtual bool running() const = 0;
  // The member has sent something on this check's connection since the check began: a byte of
  // the TLS handshake or of the HTTP answer. Not the answer's verdict, only that something above
  // the member's kernel is alive. False for a TCP check, which ends at the connect.
  virtual bool answered() const = 0;
};

class TcpChecks;

// Cancels one probe. Cheap to copy; may outlive the probe (then it does nothing).
class ProbeHandle {
 public:
  ProbeHandle() = default;

  // Closes the probe's connection; its callback is then never called, not even with an error.
  // Safe at any time: twice, after completion, from inside any callback, on an empty handle.
  void cancel();
  // True from start() until the callback is called or cancel().
  bool running() const;
  // While running: RunningProbe::answered(). False once it is not running.
  bool answered() const;

 private:
  friend class Prober;
  friend class TcpChecks;
  explicit ProbeHandle(std::weak_ptr<RunningProbe> op) : op_(std::move(op)) {}
  std::weak_ptr<RunningProbe> op_;
};

class Prober {
 public:
  // Requires: `io` and `clock` outlive every probe started here. `clock` times the attempts;
  // `sockets` makes the sockets of checks on new connections (tests make it fail).
  Prober(boost::asio::io_context& io, const Clock& clock, CheckSockets sockets = {});
  ~Prober();
  Prober(const Prober&) = delete;
  Prober& operator=(const Prober&) = delete;

  // Starts one attempt. `done` is called exactly once, later, from the io_context (never inside
  // start()), unless the handle is cancelled first; then never. A probe has no deadline of its
  // own: the caller cancels it when the monitor's timeout passes (a connect to a host that drops
  // packets would otherwise wait for the kernel, minutes). Destroying the Prober does not stop
  // probes already started.
  ProbeHandle start(const std::shared_ptr<const ProbeTarget>& target, ProbeCallback done);
  ProbeHandle start(const ProbeTarget& target, ProbeCallback done) {
    return start(std::make_shared<const ProbeTarget>(target), std::move(done));
  }

 private:
  boost::asio::io_context& io_;
  const Clock& clock_;
  OpenSocket open_socket_;
  TlsContexts tls_;
  std::shared_ptr<TcpChecks> tcp_;  // TCP checks of IP addresses; null: they go through Asio
};

}  // namespace vigil::health
