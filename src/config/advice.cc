#include "config/advice.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "base/duration.h"
#include "config/address.h"
#include "config/timing.h"

namespace vigil::config {
namespace {

using model::MonitorType;

void advise_admin(const model::Admin& admin, const std::string& source_file,
                  std::vector<Diagnostic>& out) {
  const model::SourceLocation file{.file = source_file, .line = 0};
  const auto bind = parse_bind(admin.listen);
  if (bind && !is_loopback(bind->address)) {
    out.push_back(make_warning(
        file, "admin.listen " + admin.listen +
                  " is not a loopback address: the API, /metrics and the status page are "
                  "reachable from the network"));
  }
  if (admin.token_file.empty()) {
    out.push_back(make_warning(file,
                               "admin.token_file is not set: the API and CLI will refuse requests "
                               "that change anything"));
  }
}

void advise_monitor(const model::Pool& pool, const model::HealthMonitor& m,
                    std::vector<Diagnostic>& out) {
  const std::string pool_name = "pool \"" + pool.name + "\"";
  const bool weak_check = !model::uses_http(m.type);
  const bool api_port = std::ranges::any_of(pool.members, [](const model::Member& member) {
    return member.port == 6443 || member.monitor_port == 6443;
  });
  if (weak_check && api_port) {
    out.push_back(make_warning(
        m.where, pool_name + " checks port 6443 with a " + std::string(model::to_string(m.type)) +
                     " monitor, which passes while an API server is not ready; use type: HTTPS "
                     "with path: /readyz"));
  }
  if (m.type == MonitorType::kHttp && !m.bearer_token_file.empty()) {
    out.push_back(make_warning(m.where, pool_name +
                                            " sends its bearer token in clear text over HTTP; "
                                            "use type: HTTPS"));
  }
  const PoolTiming timing = monitor_timing(m);
  if (timing.worst_mark_down > kOpenShiftMarkDownLimit) {
    out.push_back(make_warning(
        m.where, pool_name + ": a dead member can stay in rotation for up to " +
                     format_duration(timing.worst_mark_down) + " (interval " +
                     format_duration(m.interval) + ", timeout " + format_duration(m.timeout) +
                     ", unhealthy_threshold " + std::to_string(m.unhealthy_threshold) +
                     "), which breaks OpenShift's rule of removing an API server within 30 s of "
                     "/readyz failing"));
  }
}

void advise_members_from(const model::Pool& pool, std::vector<Diagnostic>& out) {
  const model::KubernetesMembers& k = *pool.members_from;
  const std::string pool_name = "pool \"" + pool.name + "\"";
  if (std::ranges::all_of(pool.members, &model::Member::backup)) {
    out.push_back(make_warning(
        k.where, pool_name +
                     " follows the Kubernetes API but lists no bootstrap member: until the API "
                     "first answers, only its backups take traffic, and the API it reads may be "
                     "the one this pool carries"));
  }
  if (!k.kubeconfig.empty() && ::access(k.kubeconfig.c_str(), R_OK) != 0) {
    out.push_back(make_warning(k.where, pool_name + ": kubeconfig " + k.kubeconfig +
                                            " cannot be read (" + std::strerror(errno) +
                                            "); the pool keeps its file's members until it can"));
  }
}

void advise_pool(const model::Pool& pool, bool monitor_opted_out, std::vector<Diagnostic>& out) {
  const std::string pool_name = "pool \"" + pool.name + "\"";
  if (pool.members_from) {
    advise_members_from(pool, out);  // an empty file list is its bootstrap set's to judge
  } else if (pool.members.empty()) {
    out.push_back(make_warning(
        pool.where, pool_name + " has no members: connections to its listeners are refused"));
  } else if (std::ranges::all_of(pool.members, &model::Member::backup)) {
    out.push_back(make_warning(pool.where, pool_name +
                                               " has only backup members: backups take traffic "
                                               "only when no other member is usable"));
  }
  if (pool.health_monitor) {
    advise_monitor(pool, *pool.health_monitor, out);
  } else if (!monitor_opted_out) {
    out.push_back(make_warning(
        pool.where, pool_name +
                        " has no health monitor: members are NO_MONITOR and a dead member stays "
                        "in rotation; add health_monitor (e.g. type: HTTPS, path: /readyz)"));
  }
}

// The same IP address however it is spelt ("::1" and "0:0::1"); false for anything else.
bool same_ip(const std::string& a, const std::string& b) {
  std::array<unsigned char, 16> x{}, y{};
  for (int family : {AF_INET, AF_INET6}) {
    if (inet_pton(family, a.c_str(), x.data()) == 1) {
      return inet_pton(family, b.c_str(), y.data()) == 1 && x == y;
    }
  }
  return false;
}

bool is_wildcard(const std::string& address) {
  return address.empty() || same_ip(address, "0.0.0.0") || same_ip(address, "::");
}

void advise_listener(const model::Listener& l, const std::vector<std::string>& local,
                     std::vector<Diagnostic>& out) {
  // All of 127/8 is local on Linux (and ::1 always is), whatever the interfaces list.
  if (l.freebind || is_wildcard(l.bind_address) || is_loopback(l.bind_address)) return;
  const bool held = std::ranges::any_of(
      local, [&](const std::string& address) { return same_ip(address, l.bind_address); });
  if (held) return;
  out.push_back(make_warning(
      l.where, "listener \"" + l.name + "\" binds " + l.bind_address +
                   ", which is not an address of this host: vigil serve will fail with "
                   "\"Cannot assign requested address\"; set freebind: true if a keepalived "
                   "pair moves it here (docs/ha.md)"));
}

}  // namespace

std::vector<Diagnostic> advise(const model::Process& process, const model::Config& config,
                               const std::vector<std::string>& monitor_opt_outs,
                               const LocalAddresses& local_addresses) {
  std::vector<Diagnostic> out;
  advise_admin(process.admin, config.source_file, out);
  if (local_addresses) {
    for (const model::Listener& l : config.listeners) advise_listener(l, *local_addresses, out);
  }
  for (const model::Pool& pool : config.pools) {
    advise_pool(pool, std::ranges::find(monitor_opt_outs, pool.name) != monitor_opt_outs.end(),
                out);
  }
  return out;
}

}  // namespace vigil::config
