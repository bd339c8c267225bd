#include "cli/health_vips.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <vector>

namespace vigil::cli {
namespace {

boost::json::object status(std::string_view text) { return boost::json::parse(text).as_object(); }

struct SetCase {
  const char* description;
  const char* status;
  VipsFormat format = VipsFormat::kKeepalived;
  VipSet expected;
};

TEST(ServedVips, Table) {
  const std::vector<SetCase> cases = {
      {.description = "API load balancers' addresses, sorted, each once; the file's left out",
       .status = R"({"pools": [], "loadbalancers": [
         {"loadbalancer": {"id": "f", "source_file": "/etc/vigil/vigil.yaml",
                           "vip_address": "10.99.0.100"}},
         {"loadbalancer": {"id": "b", "source_file": "", "vip_address": "192.0.2.20"}},
         {"loadbalancer": {"id": "a", "source_file": "", "vip_address": "192.0.2.10"}},
         {"loadbalancer": {"id": "c", "source_file": "", "vip_address": "192.0.2.10"}}]})",
       .expected = {.addresses = {"192.0.2.10", "192.0.2.20"}}},
      {.description = "IPv6 in canonical form",
       .status = R"({"pools": [], "loadbalancers": [
         {"loadbalancer": {"id": "a", "vip_address": "2001:DB8:0::10"}}]})",
       .expected = {.addresses = {"2001:db8::10"}}},
      {.description = "unset, wildcard and loopback addresses are nothing to move",
       .status = R"({"pools": [], "loadbalancers": [
         {"loadbalancer": {"id": "a", "vip_address": "127.0.0.1"}},
         {"loadbalancer": {"id": "b", "vip_address": "0.0.0.0"}},
         {"loadbalancer": {"id": "c", "vip_address": "::"}},
         {"loadbalancer": {"id": "d", "vip_address": "::1"}},
         {"loadbalancer": {"id": "e", "vip_address": ""}},
         {"loadbalancer": {"id": "f"}},
         {"loadbalancer": null}]})",
       .expected = {}},
      {.description = "text that is not an address is left out, with a line that names it",
       .status = R"({"pools": [], "loadbalancers": [
         {"loadbalancer": {"id": "a", "vip_address": "192.0.2.10"}},
         {"loadbalancer": {"id": "b", "vip_address": "192.0.2.10/32 dev eth0"}},
         {"loadbalancer": {"id": "c", "vip_address": 7}}]})",
       .expected = {.addresses = {"192.0.2.10"},
                    .skipped = {"load balancer b: vip_address \"192.0.2.10/32 dev eth0\" is "
                                "not an IP address; left out",
                                "load balancer c: vip_address \"7\" is not an IP address; "
                                "left out"}}},
      {.description = "BIRD's file is for an IPv4 protocol: IPv6 is left out, with a line",
       .status = R"({"pools": [], "loadbalancers": [
         {"loadbalancer": {"id": "a", "vip_address": "192.0.2.10"}},
         {"loadbalancer": {"id": "b", "vip_address": "2001:db8::10"}}]})",
       .format = VipsFormat::kBird,
       .expected = {.addresses = {"192.0.2.10"},
                    .skipped = {"load balancer b: vip_address 2001:db8::10 is IPv6, and the BIRD "
                                "file is for an IPv4 static protocol; left out"}}},
      {.description = "no load balancer at all",
       .status = R"({"pools": [], "loadbalancer": null, "loadbalancers": []})",
       .expected = {}},
  };
  for (const SetCase& c : cases) {
    EXPECT_EQ(served_vips(status(c.status), c.format), c.expected) << c.description;
  }
}

TEST(VipsFileText, KeepalivedAndBird) {
  const std::vector<std::string> addresses = {"192.0.2.10", "2001:db8::10"};
  const std::string header =
      "# Written by `vigil health --vips-file`: the addresses of the load balancers created "
      "through vigil's API. Do not edit.\n";
  EXPECT_EQ(vips_file_text(addresses, VipsFormat::kKeepalived),
            header + "192.0.2.10/32\n2001:db8::10/128\n");
  EXPECT_EQ(vips_file_text(addresses, VipsFormat::kBird),
            header + "route 192.0.2.10/32 via \"lo\";\nroute 2001:db8::10/128 via \"lo\";\n");
  EXPECT_EQ(vips_file_text({}, VipsFormat::kBird), header);
  EXPECT_EQ(parse_vips_format("bird"), VipsFormat::kBird);
  EXPECT_EQ(parse_vips_format("keepalived"), VipsFormat::kKeepalived);
  EXPECT_EQ(parse_vips_format("vrrp"), std::nullopt);
}

struct StepCase {
  const char* description;
  VipsState state;
  std::optional<std::string> text;
  bool reloading = false;
  VipsStep expected;
};

TEST(NextVipsStep, Table) {
  const std::vector<StepCase> cases = {
      {.description = "a new set is written and reloaded",
       .state = {.written = "a"},
       .text = "b",
       .expected = {.state = {.written = "b"}, .write = "b", .reload = true}},
      {.description = "the same set writes nothing and reloads nothing",
       .state = {.written = "a"},
       .text = "a",
       .expected = {.state = {.written = "a"}}},
      {.description = "vigil did not answer: the file stays",
       .state = {.written = "a"},
       .text = std::nullopt,
       .expected = {.state = {.written = "a"}}},
      {.description = "a failed reload is run again, even while vigil does not answer",
       .state = {.written = "a", .reload_due = true},
       .text = std::nullopt,
       .expected = {.state = {.written = "a"}, .reload = true}},
      {.description = "a write while a reload runs: another reload once it has ended",
       .state = {.written = "a"},
       .text = "b",
       .reloading = true,
       .expected = {.state = {.written = "b", .reload_due = true}, .write = "b"}},
      {.description = "the first answer after a start that found no file",
       .state = {},
       .text = "a",
       .expected = {.state = {.written = "a"}, .write = "a", .reload = true}},
  };
  for (const StepCase& c : cases) {
    EXPECT_EQ(next_vips_step(c.state, c.text, c.reloading), c.expected) << c.description;
  }
}

}  // namespace
}  // namespace vigil::cli
