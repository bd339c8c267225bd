// Who may connect to a frontend, from its `acl NAME src ...` lines and its `tcp-request
// connection|session|content accept|reject` rules: what becomes its listeners' allowed_cidrs.
// Only the shapes that name an allow-list convert; the rest is reported, never guessed. Pure.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace vigil::config::haproxy {

// `acl NAME src 10.0.0.0/8 ...`: the words after the name.
struct AclLine {
  int line = 0;
  std::string text;  // the directive, for messages
  std::string name;
  std::vector<std::string> words;  // {"src", "10.0.0.0/8"}
  bool operator==(const AclLine&) const = default;
};

// `tcp-request connection reject unless trusted`.
struct SourceRule {
  int line = 0;
  std::string text;                    // the directive, for messages
  std::string layer;                   // connection, session or content
  std::string action;                  // accept or reject
  std::vector<std::string> condition;  // {"unless", "trusted"}; empty: unconditional
  bool operator==(const SourceRule&) const = default;
};

// What a frontend or listen section holds of them, in file order.
struct SourceRules {
  std::vector<AclLine> acls;
  std::vector<SourceRule> rules;
  bool operator==(const SourceRules&) const = default;
};

struct AllowedSources {
  std::vector<std::string> cidrs;                    // empty: every client
  std::vector<std::pair<int, std::string>> reports;  // (line, warning), by line: every rule
                                                     // and acl line left unconverted
};

// The networks HAProxy would let through, as zero or more `accept if <src>` rules followed by
// one `reject unless <src>` (or `reject if !<src>`, or an unconditional `reject`), where <src>
// is `{ src ... }` or the name of acl lines that all read `src ...`. Any other shape converts to
// no restriction, with a warning that says so, at the rule that does not fit.
AllowedSources allowed_sources(const SourceRules& rules);

}  // namespace vigil::config::haproxy
