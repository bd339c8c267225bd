#include "testing/apisim/endpoint_slices.h"

#include <gtest/gtest.h>

namespace vigil::apisim {
namespace {

std::vector<Endpoint> list(std::string_view text) {
  auto parsed = parse_endpoints(text);
  EXPECT_TRUE(parsed) << text << ": " << parsed.error().message;
  return parsed.value_or(std::vector<Endpoint>{});
}

TEST(ApisimEndpointList, ParsesAndPrintsBack) {
  struct Case {
    const char* text;
    std::size_t count;
  };
  const Case cases[] = {
      {.text = "", .count = 0},
      {.text = "10.0.0.11:6443", .count = 1},
      {.text = "10.0.0.11:6443,10.0.0.12:6443!notready", .count = 2},
      {.text = "10.0.0.11:6443,[2001:db8::1]:6443", .count = 2},
  };
  for (const auto& c : cases) {
    const auto endpoints = list(c.text);
    EXPECT_EQ(endpoints.size(), c.count) << c.text;
    EXPECT_EQ(format_endpoints(endpoints), c.text);
  }
  const auto mixed = list("[2001:db8::1]:6443!notready");
  ASSERT_EQ(mixed.size(), 1u);
  EXPECT_EQ(mixed[0].ip, "2001:db8::1");
  EXPECT_EQ(mixed[0].type, AddressType::kIPv6);
  EXPECT_FALSE(mixed[0].ready);
}

TEST(ApisimEndpointList, RefusesWithAReason) {
  for (const char* bad :
       {"10.0.0.11", "master-01:6443", "10.0.0.11:6443,10.0.0.12:6444", "10.0.0.11:6443,",
        "10.0.0.11:0", "10.0.0.11:6443,10.0.0.11:6443", ":6443", "10.0.0.11:6443!sick"}) {
    EXPECT_FALSE(parse_endpoints(bad)) << bad;
  }
}

TEST(ApisimSlices, OnePerFamilyNamedAsTheReconcilerDoes) {
  auto v4 = slices_for(list("10.0.0.11:6443,10.0.0.12:6443"));
  ASSERT_EQ(v4.size(), 1u);
  EXPECT_EQ(v4[0].name, "kubernetes");
  EXPECT_EQ(v4[0].endpoints.size(), 2u);
  auto v6 = slices_for(list("[2001:db8::1]:6443"));
  ASSERT_EQ(v6.size(), 1u);
  EXPECT_EQ(v6[0].name, "kubernetes");
  EXPECT_EQ(v6[0].address_type, AddressType::kIPv6);
  auto both = slices_for(list("[2001:db8::1]:6443,10.0.0.11:6443"));
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].name, "kubernetes");
  EXPECT_EQ(both[0].endpoints.size(), 1u);
  EXPECT_EQ(both[1].name, "kubernetes-ipv6");
  auto none = slices_for({});
  ASSERT_EQ(none.size(), 1u);
  EXPECT_TRUE(none[0].endpoints.empty());
}

std::vector<std::string> types(const std::vector<SliceEvent>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(std::string(to_string(e.type)) + " " + e.slice.name);
  return out;
}

TEST(ApisimSlices, ChangesAreEventsEachWithItsOwnVersion) {
  struct Case {
    const char* description;
    const char* before;
    const char* after;
    std::vector<std::string> events;
  };
  const Case cases[] = {
      {.description = "nothing changes", .before = "10.0.0.11:6443", .after = "10.0.0.11:6443"},
      {.description = "a master joins",
       .before = "10.0.0.11:6443",
       .after = "10.0.0.11:6443,10.0.0.12:6443",
       .events = {"MODIFIED kubernetes"}},
      {.description = "an IPv6 one joins",
       .before = "10.0.0.11:6443",
       .after = "10.0.0.11:6443,[2001:db8::1]:6443",
       .events = {"ADDED kubernetes-ipv6"}},
      {.description = "the IPv6 one leaves",
       .before = "10.0.0.11:6443,[2001:db8::1]:6443",
       .after = "10.0.0.11:6443",
       .events = {"DELETED kubernetes-ipv6"}},
      {.description = "the family changes: addressType is immutable",
       .before = "10.0.0.11:6443",
       .after = "[2001:db8::1]:6443",
       .events = {"DELETED kubernetes", "ADDED kubernetes"}},
  };
  for (const auto& c : cases) {
    std::uint64_t version = 10;
    EndpointSlices slices(list(c.before), version);
    const auto events = slices.set(list(c.after), version);
    EXPECT_EQ(types(events), c.events) << c.description;
    EXPECT_EQ(version, 10 + c.events.size()) << c.description;
    for (std::size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(events[i].slice.resource_version, 11 + i) << c.description;
    }
  }
}

TEST(ApisimSlices, UnchangedSliceKeepsItsVersion) {
  std::uint64_t version = 10;
  EndpointSlices slices(list("10.0.0.11:6443"), version);
  slices.set(list("10.0.0.11:6443,[2001:db8::1]:6443"), version);
  EXPECT_EQ(slices.slices()[0].resource_version, 10u);
  EXPECT_EQ(slices.slices()[1].resource_version, 11u);
}

TEST(ApisimSliceHistory, ServesWhatItRemembersAndExpiresTheRest) {
  std::uint64_t version = 100;
  EndpointSlices slices(list("10.0.0.11:6443"), version);
  slices.set(list("10.0.0.11:6443,10.0.0.12:6443"), version);  // 101
  version += 5;                                                // other objects' writes
  slices.set(list("10.0.0.12:6443"), version);                 // 107

  EXPECT_EQ(slices.since(100)->size(), 2u);
  EXPECT_EQ(slices.since(101)->size(), 1u);
  EXPECT_EQ(slices.since(107)->size(), 0u);
  EXPECT_EQ(slices.since(999)->size(), 0u);  // ahead of us: nothing yet
  EXPECT_EQ(slices.since(99).error(), 100u);

  slices.compact(version);
  EXPECT_EQ(slices.since(106).error(), 107u);
  EXPECT_EQ(slices.since(107)->size(), 0u);
}

TEST(ApisimSliceHistory, ForgetsTheOldestBeyondItsLimit) {
  std::uint64_t version = 0;
  EndpointSlices slices(list("10.0.0.11:6443"), version);
  for (std::size_t i = 0; i < EndpointSlices::kHistoryLimit + 5; ++i) {
    slices.set(list(i % 2 ? "10.0.0.11:6443" : "10.0.0.12:6443"), version);
  }
  EXPECT_EQ(slices.history_start(), 5u);
  EXPECT_FALSE(slices.since(4));
  EXPECT_EQ(slices.since(5)->size(), EndpointSlices::kHistoryLimit);
}

}  // namespace
}  // namespace vigil::apisim
