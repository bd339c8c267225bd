#include "model/check_result.h"

#include <fmt/format.h>

#include "base/duration.h"

namespace vigil::model {

std::string_view to_string(Outcome o) {
  switch (o) {
    case Outcome::kOk: return "ok";
    case Outcome::kRefused: return "refused";
    case Outcome::kTimeout: return "timeout";
    case Outcome::kNetworkError: return "network_error";
    case Outcome::kTlsFailed: return "tls_failed";
    case Outcome::kBadStatus: return "bad_status";
    case Outcome::kBadResponse: return "bad_response";
    case Outcome::kResolveFailed: return "resolve_failed";
  }
  return "?";
}

std::string describe(const CheckResult& r) {
  std::string out;
  switch (r.outcome) {
    case Outcome::kOk:
      out = r.http_code ? fmt::format("HTTP {}", r.http_code) : "ok";
      break;
    case Outcome::kRefused: out = "connect refused"; break;
    case Outcome::kTimeout: out = "timeout"; break;
    case Outcome::kNetworkError: out = "network error"; break;
    case Outcome::kTlsFailed: out = "TLS handshake failed"; break;
    case Outcome::kBadStatus: out = fmt::format("HTTP {}", r.http_code); break;
    case Outcome::kBadResponse: out = "bad HTTP response"; break;
    case Outcome::kResolveFailed: out = "cannot resolve"; break;
  }
  if (!r.failed_checks.empty()) {
    std::string joined;
    for (const auto& c : r.failed_checks) {
      if (!joined.empty()) joined += ", ";
      joined += c;
    }
    out += fmt::format(" \"{}\"", joined);
  } else if (!r.detail.empty() && r.outcome != Outcome::kOk) {
    out += fmt::format(": {}", r.detail);
  }
  return out;
}

}  // namespace vigil::model
