// What HAProxy's source restrictions become: the allowed_cidrs of a frontend's listeners, or a
// warning at the rule that does not convert.
#include "config/haproxy/source_rules.h"

#include <gtest/gtest.h>

#include <sstream>

namespace vigil::config::haproxy {
namespace {

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// "acl NAME ..." and "tcp-request LAYER ACTION ..." lines, numbered from 1.
SourceRules rules(std::initializer_list<std::string> lines) {
  SourceRules r;
  int n = 0;
  for (const std::string& line : lines) {
    ++n;
    const std::vector<std::string> w = words(line);
    if (w[0] == "acl") {
      r.acls.push_back(
          AclLine{.line = n, .text = line, .name = w[1], .words = {w.begin() + 2, w.end()}});
    } else {
      r.rules.push_back(SourceRule{.line = n,
                                   .text = line,
                                   .layer = w[1],
                                   .action = w[2],
                                   .condition = {w.begin() + 3, w.end()}});
    }
  }
  return r;
}

std::string reports(const AllowedSources& a) {
  std::string out;
  for (const auto& [line, message] : a.reports) out += std::to_string(line) + ": " + message + "\n";
  return out;
}

using Cidrs = std::vector<std::string>;

TEST(SourceRules, AllowListsConvert) {
  struct Case {
    const char* description;
    SourceRules input;
    Cidrs expected;
  };
  const Case cases[] = {
      {.description = "reject if not an inline src",
       .input = rules({"tcp-request connection reject if !{ src 10.0.0.0/8 }"}),
       .expected = {"10.0.0.0/8"}},
      {.description = "a lone '!' negates too",
       .input = rules({"tcp-request connection reject if ! { src 10.0.0.0/8 fd00::/8 }"}),
       .expected = {"10.0.0.0/8", "fd00::/8"}},
      {.description = "reject unless an acl, whose lines are ORed",
       .input = rules({"acl lan src 10.0.0.0/8", "acl lan src 192.168.1.5",
                       "tcp-request connection reject unless lan"}),
       .expected = {"10.0.0.0/8", "192.168.1.5"}},
      {.description = "reject if a negated acl",
       .input = rules({"acl lan src 10.0.0.0/8", "tcp-request content reject if !lan"}),
       .expected = {"10.0.0.0/8"}},
      {.description = "accepts, then reject the rest",
       .input = rules({"acl lan src 10.0.0.0/8", "tcp-request connection accept if lan",
                       "tcp-request connection accept if { src 172.16.0.0/12 10.0.0.0/8 }",
                       "tcp-request connection reject"}),
       .expected = {"10.0.0.0/8", "172.16.0.0/12"}},
      {.description = "accept, then reject unless",
       .input = rules({"tcp-request session accept if { src 10.0.0.1 }",
                       "tcp-request session reject unless { src 10.0.0.2 }"}),
       .expected = {"10.0.0.1", "10.0.0.2"}},
      {.description = "no rules", .input = rules({}), .expected = {}},
  };
  for (const Case& c : cases) {
    const AllowedSources a = allowed_sources(c.input);
    EXPECT_EQ(a.cidrs, c.expected) << c.description;
    EXPECT_EQ(reports(a), "") << c.description;
  }
}

TEST(SourceRules, OtherShapesConvertToNoRestrictionAndSayWhy) {
  struct Case {
    const char* description;
    SourceRules input;
    const char* report;  // the start of the first report
  };
  const Case cases[] = {
      {.description = "a deny-list",
       .input = rules({"tcp-request connection reject if { src 10.0.0.0/8 }"}),
       .report = "1: not converted: `tcp-request connection reject if { src 10.0.0.0/8 }`: it "
                 "rejects the clients of networks (a deny-list); allowed_cidrs lists who may "
                 "connect; vigil lets every client in: write the listener's allowed_cidrs by "
                 "hand\n"},
      {.description = "another fetch than src",
       .input = rules({"tcp-request connection reject unless { dst 10.0.0.0/8 }"}),
       .report = "1: not converted: `tcp-request connection reject unless { dst 10.0.0.0/8 }`: "
                 "it tests `dst`, not only `src`"},
      {.description = "an acl with a flag",
       .input = rules(
           {"acl lan src -f /etc/haproxy/lan.lst", "tcp-request connection reject unless lan"}),
       .report = "1: ignored: `acl lan src -f /etc/haproxy/lan.lst`"},
      {.description = "an unknown acl",
       .input = rules({"tcp-request connection reject unless lan"}),
       .report = "1: not converted: `tcp-request connection reject unless lan`: no acl is named "
                 "lan"},
      {.description = "two terms",
       .input = rules({"acl a src 10.0.0.0/8", "acl b src 10.1.0.0/16",
                       "tcp-request connection reject unless a || b"}),
       .report = "1: ignored: `acl a src 10.0.0.0/8`"},
      {.description = "a rule after the reject",
       .input = rules({"tcp-request connection reject unless { src 10.0.0.0/8 }",
                       "tcp-request connection reject unless { src 10.1.0.0/16 }"}),
       .report = "2: not converted: `tcp-request connection reject unless { src 10.1.0.0/16 }`: "
                 "vigil converts no rule after the one that rejects the other clients"},
      {.description = "a bad network",
       .input = rules({"tcp-request connection reject unless { src 10.0.0.0/99 }"}),
       .report = "1: not converted: `tcp-request connection reject unless { src 10.0.0.0/99 }`: "
                 "`10.0.0.0/99`"},
      {.description = "mixed layers",
       .input = rules(
           {"tcp-request connection accept if { src 10.0.0.1 }", "tcp-request content reject"}),
       .report = "2: not converted: `tcp-request content reject`: the rules mix tcp-request "
                 "connection and content"},
      {.description = "rejects everyone",
       .input = rules({"tcp-request connection reject"}),
       .report = "1: not converted: `tcp-request connection reject`: it rejects every client"},
      {.description = "accepts alone",
       .input = rules({"tcp-request connection accept if { src 10.0.0.1 }"}),
       .report = "1: ignored: `tcp-request connection accept if { src 10.0.0.1 }`: no rule "
                 "rejects the other clients"},
  };
  for (const Case& c : cases) {
    const AllowedSources a = allowed_sources(c.input);
    EXPECT_EQ(a.cidrs, Cidrs{}) << c.description;
    EXPECT_TRUE(reports(a).starts_with(c.report)) << c.description << "\n" << reports(a);
  }
}

TEST(SourceRules, AnAclNoConvertedRuleNamesIsReported) {
  const AllowedSources a =
      allowed_sources(rules({"acl lan src 10.0.0.0/8", "acl other src 10.9.0.0/16",
                             "tcp-request connection reject unless lan"}));
  EXPECT_EQ(a.cidrs, Cidrs{"10.0.0.0/8"});
  EXPECT_EQ(reports(a),
            "2: ignored: `acl other src 10.9.0.0/16`: vigil evaluates no ACLs but the source "
            "networks of the tcp-request rules it converts to allowed_cidrs; every connection is "
            "accepted and forwarded (filter at the firewall)\n");
}

}  // namespace
}  // namespace vigil::config::haproxy
