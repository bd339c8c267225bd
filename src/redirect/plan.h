// The nftables redirects that co-located listeners (the listener key redirect_from) want, decided
// from what the control thread knows of each, and the nft script that programs them. Pure: every
// case is a table test (plan_test.cc); any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/config.h"

namespace vigil::redirect {

// What the decision needs of one listener with redirect_from.
struct ListenerFacts {
  std::string listener_id;
  std::string listener;  // its name, for logs and status
  model::RedirectFrom from;
  // Bound and accepting (not stopping). When false, `not_serving` says why.
  bool serving = false;
  std::string not_serving;
  uint16_t port = 0;  // the port it has bound (its own, or the kernel's pick)
  std::string pool;   // its pool's name; empty: it has none
  // Members its pool would send a new connection to now (the snapshot's candidates).
  size_t usable = 0;
};

// tcp to from.address:from.port goes to this host's port `to_port`.
struct Rule {
  model::RedirectFrom from;
  uint16_t to_port = 0;
  bool operator==(const Rule&) const = default;
};

// One listener's part of the decision, for its status.
struct ListenerDecision {
  std::string listener_id;
  std::string listener;
  model::RedirectFrom from;
  bool wanted = false;
  std::string why;  // "3 usable members in pool api", "no usable member in pool api", ...
  bool operator==(const ListenerDecision&) const = default;
};

struct Plan {
  std::vector<Rule> rules;  // in the listeners' order: what the table must hold, exactly
  std::vector<ListenerDecision> listeners;
  bool operator==(const Plan&) const = default;
};

// A redirect is wanted while its listener serves and its pool has at least one usable member:
// a redirect to a listener that cannot place the connection would refuse clients that the
// address's own process (kube-apiserver) would have served.
Plan decide(std::span<const ListenerFacts> facts);

// "192.0.2.10:6443", "[2001:db8::10]:6443".
std::string to_string(const model::RedirectFrom& from);

// The nft commands that make `table` (family inet) hold exactly `rules`, as one transaction:
// created with `flags owner` (the kernel deletes it with the netlink socket that made it), its
// rules flushed and written anew; with no rule, the table deleted.
std::string nft_script(std::string_view table, std::span<const Rule> rules);

}  // namespace vigil::redirect
