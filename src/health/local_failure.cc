#include "health/local_failure.h"

#include <sys/socket.h>

#include <cerrno>
#include <string>
#include <system_error>

namespace vigil::health {

OpenSocket default_open_socket() { return &::socket; }

bool is_local_errno(int error) {
  switch (error) {
    case EMFILE:  // this process is out of descriptors (a client flood can do that)
    case ENFILE:  // the system is
    case ENOBUFS:
    case ENOMEM:
    // connect(2): no local port left to connect from (ephemeral ports exhausted).
    case EADDRNOTAVAIL:
      return true;
    default:
      return false;
  }
}

model::CheckResult socket_failure(std::string_view step, int error) {
  using model::Outcome;
  Outcome outcome = Outcome::kNetworkError;
  if (is_local_errno(error)) {
    outcome = Outcome::kLocalError;
  } else if (error == ECONNREFUSED || error == ECONNRESET) {
    outcome = Outcome::kRefused;
  }
  std::string detail = std::system_category().message(error);
  if (outcome == Outcome::kLocalError) detail = std::string(step) + ": " + detail;
  return {.outcome = outcome, .detail = std::move(detail)};
}

}  // namespace vigil::health
