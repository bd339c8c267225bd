// The pool key members_from: what it loads into, its defaults, and each bad value refused at its
// line.
#include <gtest/gtest.h>

#include <string>

#include "config/loader.h"
#include "config/test_util.h"

namespace vigil::config {
namespace {

using testing::all;
using testing::has_error;
using testing::load;

const std::string kListener = "listeners: [{name: l, bind: \":1\", pool: p}]\n";
const std::string kPoolHead = "pools:\n  - name: p\n    health_monitor: {type: TCP}\n";
const std::string kMembers = "    members: [{name: a, address: 10.0.0.1, port: 6443}]\n";

TEST(MembersFrom, LoadsAsWritten) {
  const LoadResult r = load(kListener + kPoolHead +
                            "    members_from:\n      kubernetes: {service: openshift/api, port: "
                            "\"6443\", kubeconfig: /etc/vigil/kubeconfig}\n" +
                            kMembers);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const auto& k = r.config->pools.at(0).members_from;
  ASSERT_TRUE(k);
  EXPECT_EQ(k->service_namespace, "openshift");
  EXPECT_EQ(k->service, "api");
  EXPECT_EQ(k->port, "6443");
  EXPECT_EQ(k->kubeconfig, "/etc/vigil/kubeconfig");
  EXPECT_EQ(k->where.line, 6);                          // the `kubernetes:` key
  EXPECT_EQ(r.config->pools.at(0).members.size(), 1u);  // the bootstrap set
}

TEST(MembersFrom, DefaultsFollowTheApiServersInCluster) {
  for (const char* yaml : {"    members_from: {kubernetes: {}}\n",
                           "    members_from:\n"
                           "      kubernetes:\n"}) {
    const LoadResult r = load(kListener + kPoolHead + yaml + kMembers);
    ASSERT_TRUE(r.ok()) << yaml << all(r.diagnostics);
    const auto& k = r.config->pools.at(0).members_from;
    ASSERT_TRUE(k) << yaml;
    EXPECT_EQ(k->service_namespace, "default");
    EXPECT_EQ(k->service, "kubernetes");
    EXPECT_EQ(k->port, "https");
    EXPECT_EQ(k->kubeconfig, "");
  }
}

TEST(MembersFrom, AServiceWithoutNamespaceIsInDefault) {
  const LoadResult r =
      load(kListener + kPoolHead + "    members_from: {kubernetes: {service: api}}\n" + kMembers);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.config->pools.at(0).members_from->service_namespace, "default");
}

TEST(MembersFrom, AbsentIsTheFileAlone) {
  const LoadResult r = load(kListener + kPoolHead + kMembers);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_FALSE(r.config->pools.at(0).members_from);
}

TEST(MembersFrom, BadValuesNameTheirLine) {
  struct Case {
    const char* description;
    std::string yaml;
    int line;
    const char* message;
  };
  const Case cases[] = {
      {"no source", "    members_from: {}\n", 5, "missing required key \"kubernetes\""},
      {"unknown source", "    members_from: {consul: {}}\n", 5, "unknown key \"consul\""},
      {"upper-case service", "    members_from:\n      kubernetes: {service: Default/API}\n", 6,
       "\"Default/API\" is not NAMESPACE/NAME of a Service"},
      {"three parts", "    members_from:\n      kubernetes: {service: a/b/c}\n", 6,
       "is not NAMESPACE/NAME"},
      {"port zero", "    members_from:\n      kubernetes: {port: 0}\n", 6,
       "\"0\" is neither a port name (https) nor a port number 1..65535"},
      {"port too large", "    members_from:\n      kubernetes: {port: 99999999}\n", 6,
       "is neither a port name"},
      {"port name with a space", "    members_from:\n      kubernetes: {port: \"my port\"}\n", 6,
       "is neither a port name"},
      {"empty kubeconfig", "    members_from:\n      kubernetes: {kubeconfig: \"\"}\n", 6,
       "kubeconfig"},
      {"unknown key", "    members_from:\n      kubernetes: {labels: x}\n", 6,
       "unknown key \"labels\" in members_from.kubernetes"},
      {"a list", "    members_from: [kubernetes]\n", 5, "members_from"},
  };
  for (const Case& c : cases) {
    const LoadResult r = load(kListener + kPoolHead + c.yaml + kMembers);
    EXPECT_FALSE(r.ok()) << c.description;
    EXPECT_TRUE(has_error(r, c.line, c.message)) << c.description << ": " << all(r.diagnostics);
  }
}

}  // namespace
}  // namespace vigil::config
