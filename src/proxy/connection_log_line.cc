#include "proxy/connection_log_line.h"

#include <fmt/format.h>

#include "base/log_event.h"

namespace vigil::proxy {
namespace {

int64_t millis(Duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

}  // namespace

ConnectionLine connection_line(const ConnectionRecord& r, const MemberName* member,
                               std::chrono::system_clock::time_point accepted_at, bool fields) {
  const bool connected = r.connected != TimePoint{};
  const std::string client = r.client();
  ConnectionLine out;
  out.text = fmt::format("connection listener {} client {}", r.listener_name(), client);
  if (member != nullptr) {
    out.text += fmt::format(" member {}/{} {}", member->pool, member->member, member->address);
  } else {
    out.text += " member -";
  }
  if (connected) {
    out.text += fmt::format(" connect {}ms", millis(r.connected - r.accepted));
  } else {
    out.text += " connect -";
  }
  out.text += fmt::format(" duration {}ms bytes_in {} bytes_out {} end {}",
                          millis(r.ended - r.accepted), r.bytes_in, r.bytes_out, to_string(r.end));
  if (r.retries > 0) out.text += fmt::format(" retries {}", r.retries);
  if (r.replayed) out.text += " replayed";
  if (!fields) return out;

  boost::json::object& f = out.fields;
  f["listener"] = r.listener_name();
  f["client"] = client;
  f["accepted_at"] = log::utc_millis(accepted_at);
  f["pool"] = member != nullptr ? boost::json::value(member->pool) : nullptr;
  f["member"] = member != nullptr ? boost::json::value(member->member) : nullptr;
  f["member_address"] = member != nullptr ? boost::json::value(member->address) : nullptr;
  f["connect_ms"] = connected ? boost::json::value(millis(r.connected - r.accepted)) : nullptr;
  f["duration_ms"] = millis(r.ended - r.accepted);
  f["bytes_in"] = r.bytes_in;
  f["bytes_out"] = r.bytes_out;
  f["end"] = to_string(r.end);
  f["retries"] = static_cast<int>(r.retries);
  f["replayed"] = r.replayed;
  return out;
}

}  // namespace vigil::proxy
