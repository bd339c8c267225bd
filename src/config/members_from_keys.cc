// Key table of a pool's members_from: the members a Kubernetes Service's EndpointSlices list, as
// the pool's members once the API answers (kube/members_source.h). The file's members are the
// bootstrap set, because vigil often carries the very API it reads from.
#include <fmt/format.h>

#include "config/yaml_keys.h"

namespace vigil::config {
namespace {

using model::KubernetesMembers;

// A DNS-1123 label, as Kubernetes names namespaces and Services: what the API would refuse is
// refused here, with the file's line, rather than by a 404 at run time.
bool dns_label(std::string_view s) {
  if (s.empty() || s.size() > 63 || s.front() == '-' || s.back() == '-') return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

void read_service(YamlReader& r, const Field& f, KubernetesMembers& k) {
  auto text = r.scalar(f, "NAMESPACE/NAME");
  if (!text) return;
  const size_t slash = text->find('/');
  const std::string ns = slash == std::string::npos ? "default" : text->substr(0, slash);
  const std::string name = slash == std::string::npos ? *text : text->substr(slash + 1);
  if (!dns_label(ns) || !dns_label(name)) {
    return r.error(f.line, fmt::format("{}: \"{}\" is not NAMESPACE/NAME of a Service (lower-case "
                                       "letters, digits and '-', e.g. default/kubernetes)",
                                       f.path(), *text));
  }
  k.service_namespace = ns;
  k.service = name;
}

void read_port(YamlReader& r, const Field& f, KubernetesMembers& k) {
  auto text = r.scalar(f, "a port name or number");
  if (!text) return;
  const bool digits = !text->empty() && text->find_first_not_of("0123456789") == std::string::npos;
  if (digits ? (text->size() > 5 || std::stoi(*text) < 1 || std::stoi(*text) > 65535)
             : !dns_label(*text)) {
    return r.error(f.line, fmt::format("{}: \"{}\" is neither a port name (https) nor a port "
                                       "number 1..65535",
                                       f.path(), *text));
  }
  k.port = *text;
}

constexpr KeySpec<KubernetesMembers> kKubernetesKeys[] = {
    {"service", "NAMESPACE/NAME", "default/kubernetes",
     "The Service whose EndpointSlices (discovery.k8s.io/v1, label "
     "kubernetes.io/service-name) list the members: default/kubernetes lists the API servers. "
     "Listed, then watched from the list's resourceVersion; a watch that ends is resumed, a "
     "410 Gone re-lists, and a failed request is retried after a backoff with jitter (1 s "
     "doubling to 30 s).",
     read_service},
    {"port", "name or number", "https",
     "Which of the slices' ports the members get: its name, or its number.", read_port},
    {"kubeconfig", "path", "",
     "A kubeconfig file (its current context: server, certificate-authority(-data), "
     "tls-server-name, token, tokenFile or client certificate). Absent: in-cluster, with the "
     "pod's service account (/var/run/secrets/kubernetes.io/serviceaccount) and "
     "KUBERNETES_SERVICE_HOST/PORT. The server's certificate is always verified. Needs `list` "
     "and `watch` on endpointslices.discovery.k8s.io in the namespace (docs/kubernetes.md).",
     [](YamlReader& r, const Field& f, KubernetesMembers& k) { r.set_string(f, k.kubeconfig); }},
};

struct MembersFrom {
  std::optional<KubernetesMembers> kubernetes;
};

void read_kubernetes(YamlReader& r, const Field& f, MembersFrom& m) {
  KubernetesMembers k{.where = r.at(f.line)};
  if (f.value.is_null()) {  // `kubernetes:` alone: every default
    m.kubernetes = k;
    return;
  }
  if (r.read_map(f.value, f.line, kubernetes_members_section(), k)) m.kubernetes = k;
}

constexpr KeySpec<MembersFrom> kMembersFromKeys[] = {
    {"kubernetes", "map", "",
     "Members from a Kubernetes Service's EndpointSlices; see `members_from.kubernetes`. The "
     "pool's `members:` are the bootstrap set, used until the API first answers (vigil may "
     "carry the API it reads from); after that the API's list replaces them, except `backup` "
     "members, which stay. A member the API lists at a file member's address and port keeps "
     "that member's name and settings; others are named ADDRESS:PORT. The API down, a broken "
     "watch or an empty answer never empties the pool: the last known list stays, and `vigil "
     "status`, /metrics and the log say so. Members that stay keep their health and sessions, "
     "as on a reload.",
     read_kubernetes, true},
};

}  // namespace

const Section<KubernetesMembers>& kubernetes_members_section() {
  static constexpr Section<KubernetesMembers> kSection{
      "members_from.kubernetes", "pools[].members_from.kubernetes", kKubernetesKeys};
  return kSection;
}

void read_members_from(YamlReader& r, const Field& f, PoolDraft& pool) {
  static constexpr Section<MembersFrom> kSection{"members_from", "pools[].members_from",
                                                 kMembersFromKeys};
  MembersFrom m;
  if (!r.read_map(f.value, f.line, kSection, m) || !m.kubernetes) return;
  pool.members_from = std::move(m.kubernetes);
}

}  // namespace vigil::config
