#include "daemon/bind_check.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vigil::daemon {
namespace {

model::Listener listener(std::string name, std::string address, uint16_t port) {
  model::Listener l;
  l.name = std::move(name);
  l.bind_address = std::move(address);
  l.port = port;
  return l;
}

model::Config lb(std::string name, std::vector<model::Listener> listeners) {
  model::Config c;
  c.name = std::move(name);
  c.listeners = std::move(listeners);
  return c;
}

// Load balancers an API write may leave running.
std::vector<LoadBalancerRuntime> running(std::vector<model::Config> configs) {
  std::vector<LoadBalancerRuntime> out(configs.size());
  for (size_t i = 0; i < configs.size(); ++i) out[i].config = std::move(configs[i]);
  return out;
}

template <typename T>
std::string error_of(const Result<T>& r) {
  return r ? "" : r.error().message;
}

TEST(CheckBinds, TwoListenersOfTheFileOnOneAddressAndPortAreRefused) {
  model::Config file = lb("file", {listener("api", "10.0.0.1", 6443), listener("mcs", "", 22623),
                                   listener("api2", "10.0.0.1", 6443)});
  EXPECT_EQ(error_of(check_binds({&file}, nullptr)),
            "listeners file/api and file/api2 both listen on port 6443");
}

TEST(CheckBinds, EveryAddressClashesWithOneOfThemOnTheSamePort) {
  model::Config file = lb("file", {listener("one", "10.0.0.1", 80), listener("all", "", 80)});
  EXPECT_EQ(error_of(check_binds({&file}, nullptr)),
            "listeners file/one and file/all both listen on port 80");
}

TEST(CheckBinds, OtherAddressesOrPortsAndPortZeroDoNotClash) {
  model::Config file =
      lb("file", {listener("a", "10.0.0.1", 443), listener("b", "10.0.0.2", 443),
                  listener("c", "10.0.0.1", 80), listener("t1", "", 0), listener("t2", "", 0)});
  const auto index = check_binds({&file}, nullptr);
  ASSERT_TRUE(index) << index.error().message;
  EXPECT_EQ((*index)->size(), 5u);
}

TEST(CheckBinds, AnApiLoadBalancerIsCheckedAgainstTheFileAndTheOthers) {
  model::Config file = lb("file", {listener("api", "10.0.0.1", 6443)});
  model::Config a = lb("a", {listener("l", "10.0.0.2", 6443)});
  model::Config on_file = lb("b", {listener("l", "10.0.0.1", 6443)});
  EXPECT_EQ(error_of(check_binds({&file, &a, &on_file}, nullptr)),
            "listeners file/api and b/l both listen on port 6443");
  model::Config on_a = lb("c", {listener("l", "10.0.0.2", 6443)});
  EXPECT_EQ(error_of(check_binds({&file, &a, &on_a}, nullptr)),
            "listeners a/l and c/l both listen on port 6443");
  model::Config elsewhere = lb("d", {listener("l", "10.0.0.3", 6443)});
  EXPECT_TRUE(check_binds({&file, &a, &elsewhere}, nullptr));
}

TEST(CheckBinds, AnApiWriteReusesTheIndexOfTheFile) {
  // The index of the last reload comes back as it was (the file's listeners are not indexed
  // again on every write), and the write's listeners are checked against it.
  model::Config file = lb("file", {listener("api", "10.0.0.1", 6443)});
  const auto index = check_binds({&file}, nullptr);
  ASSERT_TRUE(index);
  model::Config write = lb("w", {listener("l", "", 6443)});
  EXPECT_EQ(error_of(check_binds({&file, &write}, *index)),
            "listeners file/api and w/l both listen on port 6443");
  model::Config other_port = lb("w", {listener("l", "", 6444)});
  const auto same = check_binds({&file, &other_port}, *index);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->get(), index->get());
  EXPECT_EQ((*same)->size(), 1u);
}

TEST(CheckRunningBinds, AWriteClashesWithALoadBalancerItLeavesRunning) {
  const std::vector<LoadBalancerRuntime> lbs = running(
      {lb("one", {listener("l", "10.0.0.1", 443)}), lb("two", {listener("l", "10.0.0.2", 443)})});
  model::Config write = lb("new", {listener("web", "10.0.0.2", 443)});
  model::Config* given[] = {&write};
  EXPECT_EQ(error_of(check_running_binds(given, lbs, {})),
            "listeners two/l and new/web both listen on port 443");
  EXPECT_EQ(error_of(check_running_binds(given, lbs, {&lbs[0]})),
            "listeners two/l and new/web both listen on port 443");
}

TEST(CheckRunningBinds, ALoadBalancerTheWriteReplacesDoesNotClash) {
  // Moving a listener within one load balancer, or taking over the port of one it removes.
  const std::vector<LoadBalancerRuntime> lbs = running(
      {lb("one", {listener("l", "10.0.0.1", 443)}), lb("two", {listener("l", "10.0.0.2", 443)})});
  model::Config write = lb("two", {listener("l2", "10.0.0.2", 443)});
  model::Config* given[] = {&write};
  EXPECT_TRUE(check_running_binds(given, lbs, {&lbs[1]}));
}

TEST(CheckRunningBinds, OtherAddressesPortsAndAWriteWithoutListenersDoNotClash) {
  const std::vector<LoadBalancerRuntime> lbs =
      running({lb("one", {listener("l", "10.0.0.1", 443), listener("m", "", 8443)})});
  model::Config write = lb("new", {listener("a", "10.0.0.2", 443), listener("b", "10.0.0.1", 80)});
  model::Config empty = lb("empty", {});
  model::Config* given[] = {&write, &empty};
  EXPECT_TRUE(check_running_binds(given, lbs, {}));
  model::Config wildcard = lb("new", {listener("a", "10.0.0.3", 8443)});
  model::Config* clashing[] = {&empty, &wildcard};
  EXPECT_EQ(error_of(check_running_binds(clashing, lbs, {})),
            "listeners one/m and new/a both listen on port 8443");
  model::Config* none[] = {&empty};
  EXPECT_TRUE(check_running_binds(none, lbs, {}));
}

}  // namespace
}  // namespace vigil::daemon
