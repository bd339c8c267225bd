// Key table of a pool's session_persistence, Octavia's field of the same name in YAML: which
// client goes back to which member (proxy/sticky.h carries it out).
#include "base/ascii.h"
#include "config/yaml_keys.h"
#include "net/netmask.h"

namespace vigil::config {
namespace {

using model::Persistence;
using model::SessionPersistence;

void read_type(YamlReader& r, const Field& f, SessionPersistence& sp) {
  auto text = r.scalar(f, "SOURCE_IP");
  if (!text) return;
  // Octavia's other types are HTTP's (cookies); a TCP proxy never sees them.
  if (uppercase(*text) != "SOURCE_IP") {
    return r.error(f.line, f.path() + ": unsupported session persistence type " +
                               YamlReader::describe(f.value) +
                               "; use SOURCE_IP (vigil is a TCP load balancer: HTTP_COOKIE and "
                               "APP_COOKIE need HTTP)");
  }
  sp.type = Persistence::kSourceIp;
}

void read_granularity(YamlReader& r, const Field& f, SessionPersistence& sp) {
  auto text = r.scalar(f, "a netmask");
  if (!text) return;
  if (auto mask = net::parse_netmask(*text); !mask) {
    return r.error(f.line, f.path() + ": " + mask.error().message);
  }
  sp.granularity = *text;
}

constexpr KeySpec<SessionPersistence> kPersistenceKeys[] = {
    {"type", "SOURCE_IP", "",
     "Keep each client on the member it first got while that member takes connections, as "
     "Octavia's amphora does with a stick table on the source address: members coming and going "
     "move no known client (a hash, `algorithm: source_ip`, would move some). A new client gets "
     "the member hashing its address gives; one whose member is down, disabled or drained gets "
     "another and stays there. The workers share the table, without locks.",
     read_type, true},
    {"timeout", "duration", "360s",
     "A client unseen this long (since its last new connection) is forgotten (Octavia's "
     "persistence_timeout). The table holds 10000 clients per pool (Octavia's amphora's size); "
     "past that, a new client takes the place of one of the least recently seen.",
     [](YamlReader& r, const Field& f, SessionPersistence& sp) {
       r.set_duration(f, sp.timeout, kMaxIdleTimeout);
     }},
    {"granularity", "netmask", "255.255.255.255",
     "Clients whose addresses match under this netmask share one entry and one member "
     "(Octavia's persistence_granularity): 255.255.255.0 for IPv4 /24s, ffff:ffff:ffff:ffff:: "
     "for IPv6 /64s. A mask applies to clients of its own family; the other family's are told "
     "apart by their whole address.",
     read_granularity},
};

}  // namespace

const Section<SessionPersistence>& persistence_section() {
  static constexpr Section<SessionPersistence> kSection{
      "session_persistence", "pools[].session_persistence", kPersistenceKeys};
  return kSection;
}

void read_session_persistence(YamlReader& r, const Field& f, PoolDraft& pool) {
  if (f.value.is_null()) return;  // `session_persistence:` with nothing after it: none
  SessionPersistence sp;
  if (!r.read_map(f.value, f.line, persistence_section(), sp)) return;
  pool.session_persistence = sp;
}

}  // namespace vigil::config
