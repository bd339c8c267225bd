#include "cli/check_code.h"

#include <fmt/format.h>

#include "cli/status_doc.h"
#include "model/check_result.h"
#include "model/config.h"

namespace vigil::cli {
namespace {

// HAProxy's layer of a passing check: what the monitor got through.
std::string_view passed(std::optional<model::MonitorType> type) {
  if (!type || *type == model::MonitorType::kTcp) return "L4OK";
  if (*type == model::MonitorType::kTlsHello) return "L6OK";
  return "L7OK";
}

}  // namespace

std::string check_code(std::string_view monitor_type, const boost::json::object& check) {
  const auto outcome = model::parse<model::Outcome>(str(check, "result"));
  if (!outcome) return "-";
  const auto type = model::parse<model::MonitorType>(monitor_type);
  const std::string code = str(check, "http_code");
  const std::string with_code = code.empty() ? "" : " " + code;
  switch (*outcome) {
    case model::Outcome::kOk:
      return std::string(passed(type)) + with_code;
    case model::Outcome::kRefused:
    case model::Outcome::kNetworkError:
      return "L4CON";
    case model::Outcome::kTimeout:
      // One deadline covers the whole attempt, so only a TCP check's timeout has a known layer.
      return !type || *type == model::MonitorType::kTcp ? "L4TOUT" : "TOUT";
    case model::Outcome::kTlsFailed:
      return "L6RSP";
    case model::Outcome::kBadStatus:
      return "L7STS" + with_code;
    case model::Outcome::kBadResponse:
      return "L7RSP";
    case model::Outcome::kResolveFailed:
      return "DNS";
    case model::Outcome::kLocalError:
      return "SOCKERR";
  }
  return "-";
}

std::string check_duration(double ms) {
  if (ms < 0) return "-";
  if (ms < 10) return fmt::format("{:.1f}ms", ms);
  if (ms < 1000) return fmt::format("{:.0f}ms", ms);
  return fmt::format("{:.1f}s", ms / 1000);
}

}  // namespace vigil::cli
