#include "config/haproxy/source_rules.h"

#include <algorithm>
#include <expected>
#include <span>

#include "model/config.h"
#include "net/cidr.h"

namespace vigil::config::haproxy {
namespace {

constexpr std::string_view kLetIn =
    "; vigil lets every client in: write the listener's allowed_cidrs by hand";

constexpr std::string_view kUnusedAcl =
    "vigil evaluates no ACLs but the source networks of the tcp-request rules it converts to "
    "allowed_cidrs; every connection is accepted and forwarded (filter at the firewall)";

// One term of a condition: `{ src ... }`, or an acl name, either after any number of '!'.
struct SourceTerm {
  bool negated = false;
  std::vector<std::string> cidrs;
  std::string acl;  // the acl it names; empty: `{ src ... }`
};

using Found = std::expected<SourceTerm, std::string>;  // or why not

std::expected<std::vector<std::string>, std::string> src_values(
    std::span<const std::string> words) {
  if (words.empty() || words[0] != "src") {
    return std::unexpected("it tests `" + (words.empty() ? std::string() : words[0]) +
                           "`, not only `src`");
  }
  if (words.size() == 1) return std::unexpected(std::string("`src` names no network"));
  std::vector<std::string> out;
  for (const std::string& w : words.subspan(1)) {
    if (w.starts_with('-')) return std::unexpected("`src " + w + "`: vigil reads no acl flags");
    if (auto cidr = net::Cidr::parse(w); !cidr) {
      return std::unexpected("`" + w + "`: " + cidr.error().message);
    }
    out.push_back(w);
  }
  return out;
}

// The networks of every `acl name ...` line (HAProxy ORs lines of one name).
std::expected<std::vector<std::string>, std::string> acl_values(const SourceRules& r,
                                                                std::string_view name) {
  std::vector<std::string> out;
  bool found = false;
  for (const AclLine& a : r.acls) {
    if (a.name != name) continue;
    found = true;
    auto values = src_values(a.words);
    if (!values)
      return std::unexpected("acl " + a.name + " (line " + std::to_string(a.line) +
                             "): " + values.error());
    out.insert(out.end(), values->begin(), values->end());
  }
  if (!found) return std::unexpected("no acl is named " + std::string(name));
  return out;
}

// A condition of exactly one source term; anything more (`||`, several terms) is refused. Each
// '!', alone or in front of the term, negates it, as in HAProxy.
Found single_term(const SourceRules& r, std::span<const std::string> words) {
  SourceTerm term;
  std::string head;
  size_t i = 0;
  for (; i < words.size(); ++i) {
    const size_t bangs = words[i].find_first_not_of('!');
    term.negated ^= (bangs == std::string::npos ? words[i].size() : bangs) % 2 == 1;
    if (bangs != std::string::npos) {
      head = words[i].substr(bangs);
      break;
    }
  }
  if (head.empty()) return std::unexpected(std::string("the condition is empty"));
  std::expected<std::vector<std::string>, std::string> values;
  size_t end = i + 1;
  if (head == "{") {
    const auto close = std::find(words.begin() + static_cast<long>(end), words.end(), "}");
    if (close == words.end()) return std::unexpected(std::string("`{` is not closed"));
    end = static_cast<size_t>(close - words.begin()) + 1;
    values = src_values(words.subspan(i + 1, end - i - 2));
  } else {
    values = acl_values(r, head);
    if (values) term.acl = head;
  }
  if (!values) return std::unexpected(values.error());
  if (end != words.size()) {
    return std::unexpected(std::string("the condition has more than one term"));
  }
  term.cidrs = std::move(*values);
  return term;
}

// `if X` or `unless X` as one term, `unless` folded into its negation.
Found condition_term(const SourceRules& r, const SourceRule& rule) {
  const auto& c = rule.condition;
  if (c[0] != "if" && c[0] != "unless") {
    return std::unexpected("`" + c[0] + "` is no `if` or `unless`");
  }
  auto term = single_term(r, std::span<const std::string>(c).subspan(1));
  if (term && c[0] == "unless") term->negated = !term->negated;
  return term;
}

// allowed_sources() but for the acl lines; `used` gets the acls the converted rules name.
AllowedSources from_rules(const SourceRules& r, std::vector<std::string>& used) {
  AllowedSources out;
  std::vector<std::string> allowed;
  bool rejecting = false;  // a rule has rejected every client not allowed so far
  const auto fail = [&](const SourceRule& rule, const std::string& why) {
    out.cidrs.clear();
    used.clear();
    out.reports.emplace_back(rule.line,
                             "not converted: `" + rule.text + "`: " + why + std::string(kLetIn));
    return out;
  };
  for (const SourceRule& rule : r.rules) {
    if (rejecting) {
      return fail(rule, "vigil converts no rule after the one that rejects the other clients");
    }
    if (rule.layer != r.rules.front().layer) {
      return fail(rule,
                  "the rules mix tcp-request " + r.rules.front().layer + " and " + rule.layer);
    }
    if (rule.condition.empty()) {
      if (rule.action == "accept") return out;  // every client, whatever follows
      rejecting = true;
      continue;
    }
    auto term = condition_term(r, rule);
    if (!term) return fail(rule, term.error());
    if (rule.action == "accept" && term->negated) {
      return fail(rule, "it accepts the clients outside networks, which allowed_cidrs cannot say");
    }
    if (rule.action == "reject" && !term->negated) {
      return fail(rule,
                  "it rejects the clients of networks (a deny-list); allowed_cidrs lists "
                  "who may connect");
    }
    allowed.insert(allowed.end(), term->cidrs.begin(), term->cidrs.end());
    if (!term->acl.empty()) used.push_back(term->acl);
    rejecting = rule.action == "reject";
  }
  if (!rejecting) {
    // Accept rules alone let every client in, as before them.
    for (const SourceRule& rule : r.rules) {
      out.reports.emplace_back(rule.line, "ignored: `" + rule.text +
                                              "`: no rule rejects the other clients, so every "
                                              "client is let in, as in HAProxy");
    }
    used.clear();
    return out;
  }
  if (allowed.empty()) {
    return fail(r.rules.back(), "it rejects every client, which allowed_cidrs cannot say");
  }
  if (allowed.size() > model::kMaxAllowedCidrs) {
    return fail(r.rules.back(), std::to_string(allowed.size()) + " networks; vigil takes at most " +
                                    std::to_string(model::kMaxAllowedCidrs));
  }
  for (std::string& cidr : allowed) {  // in file order, once each
    if (std::ranges::find(out.cidrs, cidr) == out.cidrs.end()) out.cidrs.push_back(std::move(cidr));
  }
  return out;
}

}  // namespace

AllowedSources allowed_sources(const SourceRules& r) {
  std::vector<std::string> used;
  AllowedSources out = from_rules(r, used);
  for (const AclLine& a : r.acls) {
    if (std::ranges::find(used, a.name) != used.end()) continue;
    out.reports.emplace_back(a.line, "ignored: `" + a.text + "`: " + std::string(kUnusedAcl));
  }
  std::ranges::stable_sort(out.reports, {}, &std::pair<int, std::string>::first);
  return out;
}

}  // namespace vigil::config::haproxy
