// A pool's session_persistence in a request (or the state file), checked as Octavia checks it
// (api/v2/controllers/pool.py, common/validate.py check_session_persistence) with vigil's one
// difference written down in docs/api.md: Octavia takes persistence_timeout and
// persistence_granularity on UDP and SCTP pools only (LVS), whereas vigil's TCP pools carry
// them out, as its stick table works like LVS's persistence.
#include <fmt/format.h>

#include "admin/octavia/fields.h"
#include "net/netmask.h"

namespace vigil::admin {
namespace {

constexpr std::string_view kKey = "session_persistence";
// Octavia's SUPPORTED_SP_TYPES, in its order.
constexpr std::string_view kTypes[] = {"APP_COOKIE", "HTTP_COOKIE", "SOURCE_IP"};
// A day's worth more than LVS's longest (31 days) would be a client never forgotten.
constexpr int64_t kMaxTimeoutSeconds = 31 * 24 * 3600;

// The fields of the nested object into `sp`; errors into `r`, the request's reader.
void read_fields(FieldReader& r, const boost::json::object& object, ApiSessionPersistence& sp,
                 const std::string& pool_protocol) {
  FieldReader f(object, std::string(kKey));
  if (auto v = f.one_of("type", kTypes)) sp.type = *v;
  std::optional<std::string> cookie_name = f.string("cookie_name");
  if (f.is_null("persistence_timeout")) sp.persistence_timeout.reset();
  if (auto v = f.integer("persistence_timeout", 1, kMaxTimeoutSeconds)) {
    sp.persistence_timeout = *v;
  }
  if (f.is_null("persistence_granularity")) sp.persistence_granularity.clear();
  if (auto v = f.string("persistence_granularity")) {
    if (auto mask = net::parse_netmask(*v); !mask) {
      f.invalid("persistence_granularity", "Value should be a netmask like 255.255.255.0");
    } else {
      sp.persistence_granularity = *v;
    }
  }
  if (auto e = f.finish()) return r.fail(e->status, e->message);
  if (sp.type.empty())
    return r.fail(400,
                  "Invalid input for field/attribute type. Value: "
                  "'None'. Mandatory field missing.");
  // Octavia's check_session_persistence, in its words.
  if (cookie_name && !cookie_name->empty() && sp.type != "APP_COOKIE") {
    return r.fail(400,
                  "Validation failure: Field \"cookie_name\" can only be specified with session "
                  "persistence of type \"APP_COOKIE\".");
  }
  if (sp.type == "APP_COOKIE" && (!cookie_name || cookie_name->empty())) {
    return r.fail(400,
                  "Validation failure: Field \"cookie_name\" must be specified when using the "
                  "\"APP_COOKIE\" session persistence type.");
  }
  if (sp.type != "SOURCE_IP") {
    // Octavia's wording for the cookie types on its L4 (UDP, SCTP) pools: vigil's are L4 too.
    return r.fail(400, fmt::format("Validation failure: Session persistence of type {} is not "
                                   "supported for {} protocol pools.",
                                   sp.type, pool_protocol));
  }
}

}  // namespace

void read_session_persistence(FieldReader& r, ApiPool& out) {
  if (r.is_null(kKey)) {
    out.session_persistence.reset();
    return;
  }
  const boost::json::object* object = r.object(kKey);
  if (object == nullptr) return;
  // An update changes the fields it names and keeps the others, as Octavia's does.
  ApiSessionPersistence sp = out.session_persistence.value_or(ApiSessionPersistence{});
  read_fields(r, *object, sp, out.protocol);
  if (r.ok()) out.session_persistence = std::move(sp);
}

}  // namespace vigil::admin
