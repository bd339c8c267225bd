#include "redirect/plan.h"

#include <fmt/format.h>

namespace vigil::redirect {
namespace {

bool is_ipv6(const model::RedirectFrom& from) {
  return from.address.find(':') != std::string::npos;
}

std::string why_absent(const ListenerFacts& f) {
  if (!f.serving) return "listener not serving: " + f.not_serving;
  if (f.port == 0) return "listener has no port yet";
  if (f.pool.empty()) return "listener has no pool";
  return "no usable member in pool " + f.pool;
}

}  // namespace

Plan decide(std::span<const ListenerFacts> facts) {
  Plan out;
  for (const ListenerFacts& f : facts) {
    const bool wanted = f.serving && !f.pool.empty() && f.usable > 0 && f.port != 0;
    const std::string why = wanted ? fmt::format("{} usable member{} in pool {}", f.usable,
                                                 f.usable == 1 ? "" : "s", f.pool)
                                   : why_absent(f);
    if (wanted) out.rules.push_back({.from = f.from, .to_port = f.port});
    out.listeners.push_back({.listener_id = f.listener_id,
                             .listener = f.listener,
                             .from = f.from,
                             .wanted = wanted,
                             .why = std::move(why)});
  }
  return out;
}

std::string to_string(const model::RedirectFrom& from) {
  return is_ipv6(from) ? fmt::format("[{}]:{}", from.address, from.port)
                       : fmt::format("{}:{}", from.address, from.port);
}

std::string nft_script(std::string_view table, std::span<const Rule> rules) {
  if (rules.empty()) return fmt::format("delete table inet {}\n", table);
  // Written whole every time, in one batch: the kernel applies it all or nothing, so a client
  // never meets a table half rewritten. `add` of a table or chain that exists is no error.
  std::string out = fmt::format(
      "add table inet {0} {{ flags owner; }}\n"
      "flush table inet {0}\n"
      // Remote clients: their packets enter through prerouting.
      "add chain inet {0} prerouting {{ type nat hook prerouting priority -100; policy accept; "
      "}}\n"
      // This host's own clients: locally generated packets never pass prerouting.
      "add chain inet {0} output {{ type nat hook output priority -100; policy accept; }}\n",
      table);
  for (const Rule& r : rules) {
    const std::string match = fmt::format(
        "{} daddr {} tcp dport {}", is_ipv6(r.from) ? "ip6" : "ip", r.from.address, r.from.port);
    for (std::string_view chain : {"prerouting", "output"}) {
      out +=
          fmt::format("add rule inet {} {} {} redirect to :{}\n", table, chain, match, r.to_port);
    }
  }
  return out;
}

}  // namespace vigil::redirect
