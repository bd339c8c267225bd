#include "model/check_result.h"

#include <fmt/format.h>

#include "base/ascii.h"
#include "base/duration.h"

namespace vigil::model {

std::string describe(const CheckResult& r) {
  std::string out;
  switch (r.outcome) {
    case Outcome::kOk:
      out = r.http_code ? fmt::format("HTTP {}", r.http_code) : "ok";
      break;
    case Outcome::kRefused:
      out = "connection refused";
      break;
    case Outcome::kTimeout:
      out = "timeout";
      break;
    case Outcome::kNetworkError:
      out = "network error";
      break;
    case Outcome::kTlsFailed:
      out = "TLS handshake failed";
      break;
    case Outcome::kBadStatus:
      out = fmt::format("HTTP {}", r.http_code);
      break;
    case Outcome::kBadResponse:
      out = "bad HTTP response";
      break;
    case Outcome::kResolveFailed:
      out = "cannot resolve";
      break;
    case Outcome::kLocalError:
      out = "local failure";
      break;
  }
  if (!r.failed_checks.empty()) {
    std::string joined;
    for (const auto& c : r.failed_checks) {
      if (!joined.empty()) joined += ", ";
      joined += c;
    }
    out += fmt::format(" \"{}\"", joined);
  } else if (!r.detail.empty() && r.outcome != Outcome::kOk) {
    // "connect refused: Connection refused" says the same thing twice.
    const std::string lower_detail = lowercase(r.detail);
    if (out.find(lower_detail) == std::string::npos &&
        lower_detail.find(out) == std::string::npos) {
      out += fmt::format(": {}", r.detail);
    } else if (lower_detail.find(out) != std::string::npos && lower_detail != out) {
      out = r.detail;
    }
  }
  return out;
}

}  // namespace vigil::model
