#include "config/validate.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_set>

#include "config/address.h"
#include "config/bind_index.h"
#include "config/suggest.h"

namespace vigil::config {
namespace {

std::string show(const model::SourceLocation& where) {
  return where.file + ":" + std::to_string(where.line);
}

std::string show(const BindAddress& bind) {
  if (bind.address.find(':') != std::string::npos) {
    return "[" + bind.address + "]:" + std::to_string(bind.port);
  }
  return bind.address + ":" + std::to_string(bind.port);
}

// `what`: "listener name", "member name ... in pool \"x\"".
template <typename T>
void check_unique(const std::vector<T>& items, const std::string& what, const std::string& suffix,
                  std::vector<Diagnostic>& out) {
  std::map<std::string, const model::SourceLocation*> first;
  for (const T& item : items) {
    if (item.name.empty()) continue;
    auto [it, inserted] = first.emplace(item.name, &item.where);
    if (!inserted) {
      out.push_back(make_error(item.where, "duplicate " + what + " \"" + item.name + "\"" + suffix +
                                               " (first defined at " + show(*it->second) + ")"));
    }
  }
}

void check_pool_references(const model::Config& config, std::vector<Diagnostic>& out) {
  std::vector<std::string_view> names;
  std::unordered_set<std::string_view> defined;
  for (const model::Pool& p : config.pools) {
    names.push_back(p.name);
    defined.insert(p.name);
  }
  std::unordered_set<std::string_view> used;
  for (const model::Listener& l : config.listeners) {
    used.insert(l.pool);
    if (l.pool.empty() || defined.contains(l.pool)) continue;
    out.push_back(make_error(l.where, "listener \"" + l.name + "\" uses pool \"" + l.pool +
                                          "\", which is not defined" +
                                          did_you_mean(l.pool, names)));
  }
  for (const model::Pool& p : config.pools) {
    if (p.name.empty() || used.contains(p.name)) continue;
    out.push_back(make_warning(p.where, "pool \"" + p.name + "\" is not used by any listener"));
  }
}

void check_binds(const model::Process& process, const model::Config& config,
                 std::vector<Diagnostic>& out) {
  const auto& listeners = config.listeners;
  const auto admin = parse_bind(process.admin.listen);
  BindIndex index;
  for (const model::Listener& l : listeners) {
    const BindAddress b{.address = l.bind_address, .port = l.port};
    if (const auto i = index.add(b)) {
      const model::Listener& first = listeners[*i];
      const BindAddress a{.address = first.bind_address, .port = first.port};
      out.push_back(make_error(l.where, "listener \"" + l.name + "\" binds " + show(b) +
                                            ", which clashes with listener \"" + first.name +
                                            "\" on " + show(a) + " (" + show(first.where) + ")"));
    }
    if (admin && binds_overlap(*admin, b)) {
      out.push_back(make_error(l.where, "listener \"" + l.name + "\" binds " + show(b) +
                                            ", which clashes with admin.listen " +
                                            process.admin.listen));
    }
  }
}

// trusted_sources' entries are checked where they are read (the YAML key table), each at its
// own line.
void check_accept_proxy(const model::Config& config, std::vector<Diagnostic>& out) {
  for (const model::Listener& l : config.listeners) {
    if (l.accept_proxy && l.trusted_sources.empty()) {
      out.push_back(make_error(
          l.where, "listener \"" + l.name +
                       "\": accept_proxy needs trusted_sources, the upstream load balancers' "
                       "addresses (CIDRs): a PROXY header from anyone else is refused"));
    }
    if (!l.accept_proxy && !l.trusted_sources.empty()) {
      out.push_back(make_warning(l.where, "listener \"" + l.name +
                                              "\": trusted_sources has no effect without "
                                              "accept_proxy: true"));
    }
  }
}

// redirect_from: a redirect sends a connection to the receiving interface's own address (to
// loopback for this host's clients), never to a chosen one, so only a listener on every address
// of the family receives it; and one address and port can be redirected to one listener only.
void check_redirects(const model::Config& config, std::vector<Diagnostic>& out) {
  std::map<std::pair<std::string, uint16_t>, const model::Listener*> taken;
  for (const model::Listener& l : config.listeners) {
    if (!l.redirect_from) continue;
    const model::RedirectFrom& from = *l.redirect_from;
    const bool v6 = is_ipv6_literal(from.address);
    const bool every =
        l.bind_address.empty() || l.bind_address == "::" || (!v6 && l.bind_address == "0.0.0.0");
    if (!every) {
      out.push_back(make_error(
          l.where, "listener \"" + l.name + "\": redirect_from needs a listener on every " +
                       "address (bind \":" + std::to_string(l.port) + "\"" +
                       (v6 ? "" : " or \"0.0.0.0:" + std::to_string(l.port) + "\"") + "), not on " +
                       l.bind_address +
                       ": a redirected connection arrives at the receiving interface's own "
                       "address, or at loopback from this host"));
    }
    auto [it, inserted] = taken.emplace(std::pair(from.address, from.port), &l);
    if (!inserted) {
      out.push_back(make_error(l.where, "listener \"" + l.name +
                                            "\": redirect_from is listener \"" + it->second->name +
                                            "\"'s already (" + show(it->second->where) + ")"));
    }
  }
}

// peers[]: names and addresses each once, the token or TLS that authenticates them, and this node
// among them when `peer_name` names it (the host's name is looked for when vigil starts).
void check_peers(const model::Process& process, std::vector<Diagnostic>& out) {
  const auto& peers = process.peers;
  if (peers.empty()) return;
  check_unique(peers, "peer name", "", out);
  std::map<std::pair<std::string, uint16_t>, const model::Peer*> at;
  for (const model::Peer& p : peers) {
    auto [it, inserted] = at.emplace(std::pair(p.address, p.port), &p);
    if (!inserted && !p.address.empty()) {
      out.push_back(
          make_error(p.where, "peer \"" + p.name + "\" has the address and port of peer \"" +
                                  it->second->name + "\" (" + show(it->second->where) + ")"));
    }
  }
  const model::SourceLocation& list = peers.front().where;
  if (peers.size() < 2) {
    out.push_back(make_error(list,
                             "peers lists one node: name this node and every other node "
                             "of the pair or fleet"));
  }
  const model::PeersAuth& auth = process.peers_auth;
  if (auth.token_file.empty() && !auth.tls) {
    out.push_back(make_error(list,
                             "peers needs peers_auth.token_file (a token every node holds) or "
                             "peers_auth.tls {cert, key, ca}: a peer proves who it is before it "
                             "may send sessions"));
  }
  if (!auth.token_file.empty() && auth.tls) {
    out.push_back(make_error(auth.tls->where,
                             "peers_auth: set token_file or tls, not both (tls proves more: "
                             "each node's certificate names it)"));
  }
  if (!process.peer_name.empty() && std::ranges::none_of(peers, [&](const model::Peer& p) {
        return p.name == process.peer_name;
      })) {
    std::vector<std::string_view> names;
    for (const model::Peer& p : peers) names.push_back(p.name);
    out.push_back(make_error(list, "peer_name \"" + process.peer_name + "\" is not one of peers[]" +
                                       did_you_mean(process.peer_name, names)));
  }
}

}  // namespace

void validate(const model::Process& process, const model::Config& config,
              std::vector<Diagnostic>& out) {
  check_unique(config.listeners, "listener name", "", out);
  check_unique(config.pools, "pool name", "", out);
  for (const model::Pool& p : config.pools) {
    check_unique(p.members, "member name", " in pool \"" + p.name + "\"", out);
  }
  check_pool_references(config, out);
  check_binds(process, config, out);
  check_accept_proxy(config, out);
  check_redirects(config, out);
  check_peers(process, out);
}

}  // namespace vigil::config
