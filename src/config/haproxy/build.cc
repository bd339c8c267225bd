// From the parsed sections to vigil's model. What each directive says was stored by its handler;
// here they are read together, the way HAProxy reads them: a frontend's listeners go to its
// default_backend, a server without a port takes the port its clients connected to. A pool's
// monitor is built in haproxy/monitor.cc.
#include "config/haproxy/build.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/duration.h"
#include "config/address.h"
#include "config/haproxy/values.h"
#include "config/suggest.h"

namespace vigil::config::haproxy {

std::string quote(std::string_view name) { return "\"" + std::string(name) + "\""; }

std::string kind_and_name(const ProxyDraft& x) {
  return std::string(section_name(x.kind)) + " " + quote(x.name);
}

namespace {

using namespace std::chrono_literals;

// Below this a listener's idle timeout cuts long-lived watches.
constexpr Duration kLongSession = 1h;

class Builder {
 public:
  explicit Builder(Parser& p) : p_(p), draft_(p.draft()) {}

  model::Config build() {
    config_.source_file = p_.file();
    config_.name = name_from_file(p_.file(), "haproxy");
    if (draft_.proxies.empty()) {
      p_.warning(0, "no frontend, backend or listen section: vigil has nothing to proxy");
    }
    index_names();
    choose_loaded();
    name_pools();
    for (const ProxyDraft& x : draft_.proxies) {
      if ((x.kind & kFrontendSide) != 0 && loaded_.contains(&x)) resolve_target(x);
    }
    for (const ProxyDraft& x : draft_.proxies) {
      if (pool_names_.contains(&x)) config_.pools.push_back(build_pool(x));
    }
    for (const ProxyDraft& x : draft_.proxies) {
      if (targets_.contains(&x)) build_listeners(x, *targets_.at(&x));
    }
    warn_short_idle_timeouts();
    return std::move(config_);
  }

 private:
  model::SourceLocation at(int line) const { return {.file = p_.file(), .line = line}; }

  // HAProxy's names are unique among proxies that share a side (a frontend and a backend may
  // share one; a listen is both).
  void index_names() {
    for (const ProxyDraft& x : draft_.proxies) {
      for (auto [side, index] :
           {std::pair{kBackendSide, &backends_}, std::pair{kFrontendSide, &frontends_}}) {
        if ((x.kind & side) == 0) continue;
        auto [it, inserted] = index->emplace(x.name, &x);
        if (!inserted) {
          p_.error(x.line, kind_and_name(x) + " is already defined at line " +
                               std::to_string(it->second->line));
        }
      }
    }
  }

  // Proxies vigil loads: not disabled frontends, not HAProxy's own stats pages.
  void choose_loaded() {
    for (const ProxyDraft& x : draft_.proxies) {
      if ((x.kind & kFrontendSide) != 0 && x.disabled.value) {
        p_.warning(x.disabled.line,
                   kind_and_name(x) + " is disabled: vigil does not listen on its binds");
        continue;
      }
      if ((x.kind & kFrontendSide) != 0 && x.self_served_line > 0 && x.servers.empty() &&
          !x.default_backend && x.use_backends.empty()) {
        p_.warning(x.line, "ignored: " + kind_and_name(x) +
                               " only serves HAProxy's statistics page (line " +
                               std::to_string(x.self_served_line) +
                               "); vigil's status page, /metrics and API are on admin.listen "
                               "(127.0.0.1:8404 by default)");
        continue;
      }
      loaded_.insert(&x);
    }
  }

  void name_pools() {
    for (const ProxyDraft& x : draft_.proxies) {
      if ((x.kind & kBackendSide) == 0 || !loaded_.contains(&x)) continue;
      if (x.kind == kListen && x.servers.empty() && x.default_backend) continue;  // only forwards
      if (backends_.at(x.name) != &x) continue;  // a duplicate, reported
      pool_names_[&x] = renamed(x.name, taken_pool_names_, x.line, kind_and_name(x), "pool");
      if (x.mode.value == "http") warn_http_mode(x);
    }
  }

  std::string renamed(const std::string& original, std::set<std::string>& taken, int line,
                      const std::string& what, std::string_view vigil_kind) {
    const std::string name = vigil_name(original, taken);
    if (name != original) {
      p_.warning(line, what + " is called " + quote(name) + " in vigil (" +
                           std::string(vigil_kind) +
                           " names are at most 64 letters, digits, '.', '_' and '-')");
    }
    return name;
  }

  void warn_http_mode(const ProxyDraft& x) {
    p_.warning_once(x.mode.line, "`mode http`: vigil proxies TCP; " + kind_and_name(x) +
                                     " is loaded as TCP and its HTTP rules do not apply");
  }

  // Which backend a frontend's connections go to.
  void resolve_target(const ProxyDraft& f) {
    if (f.mode.value == "http" && f.kind == kFrontend) warn_http_mode(f);
    const ProxyDraft* target = nullptr;
    if (f.default_backend) {
      target = find_backend(f.default_backend.value, f.default_backend.line);
      for (const auto& u : f.use_backends) {
        p_.warning(u.line, "ignored: `use_backend " + u.value +
                               "`: vigil does not route by conditions; every connection goes to "
                               "the default_backend " +
                               quote(f.default_backend.value));
      }
    } else if (f.kind == kListen) {
      target = &f;
    } else if (!f.use_backends.empty()) {
      std::set<std::string> names;
      for (const auto& u : f.use_backends) names.insert(u.value);
      if (names.size() == 1) {
        target = find_backend(f.use_backends[0].value, f.use_backends[0].line);
        if (target != nullptr) {
          p_.warning(f.use_backends[0].line,
                     "`use_backend " + f.use_backends[0].value +
                         "`: vigil does not route by conditions; as the only backend of " +
                         kind_and_name(f) + ", it gets every connection");
        }
      } else {
        for (const auto& u : f.use_backends) {
          p_.warning(u.line,
                     "ignored: `use_backend " + u.value + "`: vigil does not route by conditions");
        }
        p_.warning(f.line, kind_and_name(f) +
                               " has no default_backend: vigil does not listen on its binds");
      }
    } else {
      p_.warning(f.line, kind_and_name(f) +
                             " has no default_backend: HAProxy would refuse its connections; "
                             "vigil does not listen on its binds");
    }
    if (target == nullptr) return;
    if (!pool_names_.contains(target)) {
      p_.warning(f.line, kind_and_name(f) + " sends its connections to " + kind_and_name(*target) +
                             ", which has no servers of its own: vigil does not listen on its "
                             "binds");
      return;
    }
    targets_[&f] = target;
    for (const BindDraft& b : f.binds) ports_of_[target].insert(b.port);
  }

  const ProxyDraft* find_backend(const std::string& name, int line) {
    const auto it = backends_.find(name);
    if (it != backends_.end()) {
      if (!loaded_.contains(it->second)) {
        p_.error(line, "backend " + quote(name) + " is not loaded (see its warning)");
        return nullptr;
      }
      return it->second;
    }
    std::vector<std::string_view> names;
    for (const auto& [n, x] : backends_) names.push_back(n);
    p_.error(line, "backend " + quote(name) + " is not defined" +
                       (frontends_.contains(name) ? " (" + quote(name) + " is a frontend)"
                                                  : did_you_mean(name, names)));
    return nullptr;
  }

  model::Pool build_pool(const ProxyDraft& b) {
    model::Pool pool;
    pool.name = pool_names_.at(&b);
    pool.where = at(b.line);
    if (b.balance) pool.algorithm = b.balance.value;
    if (b.timeout_connect) pool.connect_timeout = b.timeout_connect.value;
    if (b.retries) pool.retries = b.retries.value;
    std::set<std::string> member_names;
    std::map<std::string, int> haproxy_names;
    int backups = 0;
    for (const ServerDraft& s : b.servers) {
      if (auto [it, inserted] = haproxy_names.emplace(s.name, s.line); !inserted) {
        p_.error(s.line, "server " + quote(s.name) + " is already defined in " + kind_and_name(b) +
                             " at line " + std::to_string(it->second));
        continue;
      }
      model::Member m;
      m.name = renamed(s.name, member_names, s.line, "server " + quote(s.name), "member");
      m.address = s.host;
      m.port = server_port(b, s);
      if (s.params.weight) m.weight = s.params.weight.value;
      m.backup = s.params.backup.value;
      m.enabled = !s.params.disabled.value && !b.disabled.value;
      if (s.params.addr) m.monitor_address = s.params.addr.value;
      if (s.params.port) m.monitor_port = static_cast<uint16_t>(s.params.port.value);
      if (s.params.send_proxy) m.proxy_protocol = s.params.send_proxy.value;
      m.where = at(s.line);
      if (m.backup && ++backups == 2 && !b.allbackups.value) {
        p_.warning(s.line, "server " + quote(s.name) +
                               " is a second backup: without `option allbackups` HAProxy uses "
                               "only the first usable backup; vigil spreads traffic over every "
                               "healthy backup");
      }
      pool.members.push_back(std::move(m));
    }
    if (b.disabled.value && (b.kind & kFrontendSide) == 0) {
      p_.warning(b.disabled.line,
                 kind_and_name(b) + " is disabled: vigil loads its members disabled (OFFLINE)");
    }
    pool.slow_start = slow_start(b);
    pool.session_persistence = build_persistence(p_, b);
    pool.health_monitor = build_monitor(p_, b, pool);
    if (pool.health_monitor) pool.health_monitor->send_proxy = checks_send_proxy(b);
    return pool;
  }

  // HAProxy's checks send the PROXY header with check-send-proxy, and by default when the
  // server sends it to its traffic and has neither `port` nor `addr`. vigil's monitor is the
  // pool's: when any checked server's checks send it, all do, with a warning at the others.
  bool checks_send_proxy(const ProxyDraft& b) {
    const auto sends = [](const ServerDraft& s) {
      const bool traffic = s.params.send_proxy.value != model::ProxyProtocol::kOff;
      return s.params.check_send_proxy.value || (traffic && !s.params.port && !s.params.addr);
    };
    const ServerDraft* first = nullptr;
    for (const ServerDraft& s : b.servers) {
      if (s.params.check.value && sends(s) && first == nullptr) first = &s;
    }
    if (first == nullptr) return false;
    for (const ServerDraft& s : b.servers) {
      if (!s.params.check.value || sends(s)) continue;
      p_.warning(s.line, "server " + quote(s.name) + "'s checks send no PROXY header, but server " +
                             quote(first->name) + "'s do (line " + std::to_string(first->line) +
                             "): vigil's checks of every member of the pool send it");
    }
    return true;
  }

  // HAProxy ramps each server up over its own slowstart, vigil every member of a pool over the
  // pool's. The longest keeps the protection the coldest server was given; the other members
  // then ramp up more gently than HAProxy would, which only delays an even spread.
  Duration slow_start(const ProxyDraft& b) {
    const ServerDraft* longest = nullptr;
    for (const ServerDraft& s : b.servers) {
      if (longest == nullptr || s.params.slowstart.value > longest->params.slowstart.value) {
        longest = &s;
      }
    }
    if (longest == nullptr) return Duration::zero();
    const Lined<Duration>& chosen = longest->params.slowstart;
    const auto said = [](const Lined<Duration>& d) {
      return d ? "`slowstart " + format_duration(d.value) + "`" : std::string("no slowstart");
    };
    for (const ServerDraft& s : b.servers) {
      if (s.params.slowstart.value == chosen.value) continue;
      p_.warning(s.line, "server " + quote(s.name) + " has " + said(s.params.slowstart) +
                             ", server " + quote(longest->name) + " (line " +
                             std::to_string(longest->line) + ") has " + said(chosen) +
                             ": vigil has one slow_start per pool and uses the longest, " +
                             format_duration(chosen.value));
    }
    return chosen.value;
  }

  uint16_t server_port(const ProxyDraft& b, const ServerDraft& s) {
    if (s.port) return *s.port;
    const auto it = ports_of_.find(&b);
    if (it != ports_of_.end() && it->second.size() == 1) return *it->second.begin();
    if (it == ports_of_.end() || it->second.empty()) {
      p_.error(s.line, "server " + quote(s.name) + " has no port, and no listener uses " +
                           kind_and_name(b) +
                           " (HAProxy connects to the port the client connected to): write the "
                           "port, like " +
                           s.host + ":6443");
    } else {
      std::string ports;
      for (uint16_t port : it->second) ports += (ports.empty() ? "" : ", ") + std::to_string(port);
      p_.error(s.line, "server " + quote(s.name) + " has no port, and the listeners of " +
                           kind_and_name(b) + " use several (" + ports +
                           "): HAProxy connects to the port each client connected to; vigil "
                           "needs one: write it");
    }
    return 1;
  }

  void build_listeners(const ProxyDraft& f, const ProxyDraft& target) {
    if (f.binds.empty()) {
      p_.warning(f.line, kind_and_name(f) + " has no bind: vigil does not listen for it");
      return;
    }
    const AllowedSources allowed = allowed_sources(f.sources);
    for (const auto& [line, message] : allowed.reports) p_.warning(line, message);
    for (size_t i = 0; i < f.binds.size(); ++i) {
      const BindDraft& b = f.binds[i];
      model::Listener l;
      l.allowed_cidrs = allowed.cidrs;
      const std::string wanted = i == 0 ? f.name : f.name + "-" + std::to_string(i + 1);
      l.name = i == 0 ? renamed(wanted, listener_names_, f.line, kind_and_name(f), "listener")
                      : vigil_name(wanted, listener_names_);
      l.bind_address = b.address;
      l.port = b.port;
      l.pool = pool_names_.at(&target);
      if (b.maxconn) {
        l.max_connections = b.maxconn.value;
      } else if (f.maxconn) {
        l.max_connections = f.maxconn.value;
      }
      l.freebind = b.transparent.value;
      l.log_connections = f.tcplog.value;
      if (b.ssl) {
        p_.error(b.ssl.line,
                 "bind ... ssl: TLS termination is not supported: vigil passes TLS "
                 "through to the servers (remove ssl and crt from the bind line, and "
                 "let the servers present their certificates)");
      }
      l.where = at(b.line);
      // The longest of the timeouts HAProxy would apply to an idle session.
      const Lined<Duration>* longest = nullptr;
      for (const Lined<Duration>* t :
           {&f.timeout_client, &target.timeout_server, &target.timeout_tunnel}) {
        if (*t && (longest == nullptr || t->value > longest->value)) longest = t;
      }
      if (longest != nullptr) {
        l.idle_timeout = longest->value;
        if (longest->value < kLongSession) short_idle_[longest->line].push_back(l.name);
      }
      config_.listeners.push_back(std::move(l));
    }
  }

  void warn_short_idle_timeouts() {
    for (const auto& [line, names] : short_idle_) {
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "" : ", ") + quote(n);
      const Duration idle =
          std::ranges::find(config_.listeners, names.front(), &model::Listener::name)->idle_timeout;
      p_.warning(line, "the idle_timeout of listener" + std::string(names.size() > 1 ? "s " : " ") +
                           list + " is " + format_duration(idle) +
                           " (the longest of timeout client, server and tunnel): a session "
                           "silent for that long is closed, which cuts long watches (kubectl get "
                           "-w); vigil's default is 1h");
    }
  }

  Parser& p_;
  Draft& draft_;
  model::Config config_;
  std::map<std::string, const ProxyDraft*> backends_, frontends_;
  std::set<const ProxyDraft*> loaded_;
  std::map<const ProxyDraft*, std::string> pool_names_;
  std::set<std::string> taken_pool_names_, listener_names_;
  std::map<const ProxyDraft*, const ProxyDraft*> targets_;
  std::map<const ProxyDraft*, std::set<uint16_t>> ports_of_;
  std::map<int, std::vector<std::string>> short_idle_;
};

}  // namespace

model::Config build_config(Parser& parser) { return Builder(parser).build(); }

model::Process build_process(Parser& parser) {
  model::Process process;
  const GlobalDraft& global = parser.draft().global;
  if (global.nbthread) process.workers = global.nbthread.value;
  return process;
}

}  // namespace vigil::config::haproxy
