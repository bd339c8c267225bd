#include "testing/apisim/slice_watchers.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace vigil::apisim {
namespace {

SliceFilter filter(std::string_view labels, std::string_view fields) {
  return {.labels = *Selector::parse(labels), .fields = *Selector::parse(fields)};
}

std::vector<SliceEvent> events_for(std::string_view before, std::string_view after) {
  std::uint64_t version = 7;
  EndpointSlices slices(*parse_endpoints(before), version);
  return slices.set(*parse_endpoints(after), version);
}

TEST(ApisimSliceWatchers, EachWatchGetsTheEventsItsFilterSelects) {
  SliceWatchers watchers;
  int woken = 0;
  SliceWatcher all(watchers, filter("", ""), [&] { ++woken; });
  SliceWatcher ipv6(watchers, filter("", "metadata.name=kubernetes-ipv6"), [&] { ++woken; });
  SliceWatcher other(watchers, filter("kubernetes.io/service-name=other", ""), [&] { ++woken; });
  EXPECT_EQ(watchers.size(), 3u);

  watchers.publish(events_for("10.0.0.11:6443", "10.0.0.12:6443,[2001:db8::1]:6443"));
  EXPECT_EQ(woken, 2);  // `other` selects nothing, so it is not woken
  EXPECT_FALSE(other.has_pending());
  const std::string lines = ipv6.take_pending();
  ASSERT_EQ(std::count(lines.begin(), lines.end(), '\n'), 1);
  const auto event = boost::json::parse(lines).as_object();
  EXPECT_EQ(event.at("type"), "ADDED");
  EXPECT_EQ(event.at("object").at("metadata").at("name"), "kubernetes-ipv6");
  EXPECT_FALSE(ipv6.has_pending());
  const std::string both = all.take_pending();
  EXPECT_EQ(std::count(both.begin(), both.end(), '\n'), 2);
}

TEST(ApisimSliceWatchers, BreakMarksAndWakesEveryWatchAndAClosedOneLeaves) {
  SliceWatchers watchers;
  int woken = 0;
  SliceWatcher first(watchers, {}, [&] { ++woken; });
  {
    SliceWatcher second(watchers, {}, [&] { ++woken; });
    EXPECT_EQ(watchers.size(), 2u);
  }
  EXPECT_EQ(watchers.size(), 1u);
  EXPECT_FALSE(first.broken());
  EXPECT_EQ(watchers.break_all(), 1u);
  EXPECT_TRUE(first.broken());
  EXPECT_EQ(woken, 1);
}

}  // namespace
}  // namespace vigil::apisim
