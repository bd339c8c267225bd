#include "daemon/health_handover.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cerrno>

#include "net/socket.h"

namespace vigil::daemon {
namespace {

namespace json = boost::json;
using model::Health;

constexpr int kFormat = 1;  // bumped when a field changes meaning; another number is refused

std::string_view health_name(Health h) {
  switch (h) {
    case Health::kUp:
      return "up";
    case Health::kDown:
      return "down";
    case Health::kUnchecked:
      break;
  }
  return "unchecked";
}

std::optional<Health> health_of(std::string_view s) {
  if (s == "up") return Health::kUp;
  if (s == "down") return Health::kDown;
  if (s == "unchecked") return Health::kUnchecked;
  return std::nullopt;
}

int64_t ns_of(model::WallTime t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}
model::WallTime wall_of(int64_t ns) {
  return model::WallTime(
      std::chrono::duration_cast<model::WallTime::duration>(std::chrono::nanoseconds(ns)));
}

json::object check_json(const model::CheckResult& r) {
  json::array failed;
  for (const std::string& f : r.failed_checks) failed.emplace_back(f);
  return {{"outcome", model::to_string(r.outcome)},
          {"http_code", r.http_code},
          {"duration_ns", std::chrono::nanoseconds(r.duration).count()},
          {"detail", r.detail},
          {"failed_checks", std::move(failed)},
          {"reused_connection", r.reused_connection}};
}

// boost::json's at() and as_*() throw on a wrong shape; decode_health() turns that into an
// error. What it reads is another vigil's own output, so a wrong shape is a version mismatch.
std::optional<model::CheckResult> check_of(const json::object& o) {
  model::CheckResult r;
  const auto outcome = model::value_in(model::spellings<model::Outcome>(),
                                       std::string_view(o.at("outcome").as_string()));
  if (!outcome) return std::nullopt;
  r.outcome = *outcome;
  r.http_code = static_cast<int>(o.at("http_code").as_int64());
  r.duration = std::chrono::nanoseconds(o.at("duration_ns").as_int64());
  r.detail = o.at("detail").as_string();
  for (const json::value& f : o.at("failed_checks").as_array()) {
    r.failed_checks.emplace_back(f.as_string());
  }
  r.reused_connection = o.at("reused_connection").as_bool();
  return r;
}

}  // namespace

std::string checked_target(const model::HealthMonitor& monitor, const model::Member& member) {
  const std::string& address =
      member.monitor_address.empty() ? member.address : member.monitor_address;
  const uint16_t port = member.monitor_port ? member.monitor_port : member.port;
  return fmt::format("{} {}:{} {}", model::to_string(monitor.type), address, port, monitor.path);
}

std::string encode_health(const std::vector<CarriedHealth>& members) {
  json::array out;
  for (const CarriedHealth& m : members) {
    json::object o{{"member_id", m.member_id},
                   {"checked", m.checked},
                   {"health", health_name(m.health)},
                   {"successes", m.successes},
                   {"failures", m.failures},
                   {"state_since_ns", ns_of(m.state_since)},
                   {"health_since_ns", ns_of(m.health_since)},
                   {"last_check_at_ns", ns_of(m.last_check_at)}};
    if (m.last_check) o["last_check"] = check_json(*m.last_check);
    out.push_back(std::move(o));
  }
  return json::serialize(json::object{{"format", kFormat}, {"members", std::move(out)}});
}

Result<std::vector<CarriedHealth>> decode_health(std::string_view text) {
  boost::system::error_code ec;
  const json::value v = json::parse(text, ec);
  if (ec) return fail("the handed-over health state is not JSON: " + ec.message());
  try {
    const json::object& top = v.as_object();
    if (top.at("format").as_int64() != kFormat) {
      return fail(fmt::format("the handed-over health state has format {}, this vigil reads {}",
                              json::serialize(top.at("format")), kFormat));
    }
    std::vector<CarriedHealth> out;
    for (const json::value& item : top.at("members").as_array()) {
      const json::object& o = item.as_object();
      const auto health = health_of(o.at("health").as_string());
      if (!health) return fail("the handed-over health state has an unknown health");
      CarriedHealth m{.member_id = std::string(o.at("member_id").as_string()),
                      .checked = std::string(o.at("checked").as_string()),
                      .health = *health,
                      .successes = static_cast<int>(o.at("successes").as_int64()),
                      .failures = static_cast<int>(o.at("failures").as_int64()),
                      .state_since = wall_of(o.at("state_since_ns").as_int64()),
                      .last_check_at = wall_of(o.at("last_check_at_ns").as_int64())};
      // Not from a vigil older than the field: its status was its health's then, overrides aside.
      const json::value* health_since = o.if_contains("health_since_ns");
      m.health_since = health_since ? wall_of(health_since->as_int64()) : m.state_since;
      if (const json::value* c = o.if_contains("last_check")) {
        m.last_check = check_of(c->as_object());
        if (!m.last_check) return fail("the handed-over health state has an unknown outcome");
      }
      out.push_back(std::move(m));
    }
    return out;
  } catch (const std::exception& e) {
    return fail(std::string("the handed-over health state is malformed: ") + e.what());
  }
}

Result<net::Fd> health_memfd(std::string_view text) {
  net::Fd fd(::memfd_create("vigil-health", MFD_CLOEXEC));
  if (!fd.valid()) return fail("memfd_create: " + net::errno_string(errno));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("writing the health state: " + net::errno_string(errno));
    done += static_cast<size_t>(n);
  }
  return fd;
}

Result<std::string> read_memfd(int fd) {
  std::string out;
  char buf[65536];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("reading the health state: " + net::errno_string(errno));
    if (n == 0) return out;
    out.append(buf, static_cast<size_t>(n));
    at += n;
  }
}

}  // namespace vigil::daemon
