// The typed result of one health-check attempt, in HAProxy's layers (L4 connect, L6 TLS, L7 HTTP).
// Produced by health/ probes, kept per member, shown by the API, the CLI and the logs.
#pragma once

#include <string>
#include <vector>

#include "base/clock.h"
#include "model/spelling.h"

namespace vigil::model {

enum class Outcome {
  kOk,
  kRefused,        // L4: connection refused or reset
  kTimeout,        // no answer within the monitor's timeout
  kNetworkError,   // L4: unreachable, or another socket error
  kTlsFailed,      // L6: the TLS handshake failed
  kBadStatus,      // L7: an HTTP answer whose code is not expected
  kBadResponse,    // L7: not a valid HTTP answer
  kResolveFailed,  // the member's name did not resolve
  // The check could not be made here (out of descriptors, buffers or memory): it says nothing
  // of the member, whose health stays as it was.
  kLocalError,
};

struct CheckResult {
  Outcome outcome = Outcome::kOk;
  int http_code = 0;                       // 0 when no HTTP answer was read
  Duration duration{0};                    // from the start of the attempt to its end
  std::string detail;                      // the error text, or the start of the body
  std::vector<std::string> failed_checks;  // "[-]etcd failed" lines of a /readyz?verbose answer
  // The request went over a connection an earlier check had left open: the answer says nothing
  // of whether the member accepts new connections.
  bool reused_connection = false;

  bool ok() const { return outcome == Outcome::kOk; }
  bool local() const { return outcome == Outcome::kLocalError; }
};

// Names in the status JSON (a check's "result").
inline constexpr Spelling<Outcome> kOutcomeNames[] = {
    {Outcome::kOk, "ok"},
    {Outcome::kRefused, "refused"},
    {Outcome::kTimeout, "timeout"},
    {Outcome::kNetworkError, "network_error"},
    {Outcome::kTlsFailed, "tls_failed"},
    {Outcome::kBadStatus, "bad_status"},
    {Outcome::kBadResponse, "bad_response"},
    {Outcome::kResolveFailed, "resolve_failed"},
    {Outcome::kLocalError, "local_error"},
};
template <>
constexpr std::span<const Spelling<Outcome>> spellings<Outcome>() {
  return kOutcomeNames;
}
constexpr std::string_view to_string(Outcome o) { return name_in(spellings<Outcome>(), o); }

// One line for logs and the CLI's reason column, e.g. `HTTP 500 "[-]etcd failed"`,
// `connection refused`, `timeout after 2s`.
std::string describe(const CheckResult& r);

}  // namespace vigil::model
