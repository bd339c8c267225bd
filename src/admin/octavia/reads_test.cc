// Octavia's lists through route(): the page size admin.octavia_pagination_max_limit gives, a
// member list's marker from another pool, and the two shapes of a list's 400.
#include "admin/octavia/reads.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "admin/fake_daemon_test.h"
#include "admin/routes.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

class OctaviaListsTest : public ::testing::Test {
 protected:
  Response get(std::string_view target, size_t page_max_limit = 1000) {
    const Request request{.method = "GET", .target = target, .x_auth_token = "T"};
    return route(request, RouteContext{.token = "T",
                                       .page_max_limit = page_max_limit,
                                       .daemon = daemon_,
                                       .now = testing::kNow});
  }
  json::object body(const Response& r) { return json::parse(r.body).as_object(); }
  std::string members_of(std::string_view pool) {
    return "/v2/lbaas/pools/" + pool_id(pool) + "/members";
  }
  std::string pool_id(std::string_view name) {
    for (const model::PoolView& p : daemon_.lbs.front().pools) {
      if (p.config.name == name) return p.id;
    }
    return "";
  }

  testing::FakeDaemon daemon_;  // the sample view: masters with three members, spare with one
};

TEST_F(OctaviaListsTest, APageHoldsAtMostTheConfiguredMaximum) {
  const Response r = get(members_of("masters") + "?fields=name", 2);
  ASSERT_EQ(r.status, 200) << r.body;
  const json::object b = body(r);
  EXPECT_EQ(b.at("members").as_array().size(), 2u);
  const std::string href(b.at("members_links").at(0).at("href").as_string());
  EXPECT_NE(href.find("?limit=2&marker="), std::string::npos) << href;
  EXPECT_EQ(body(get(members_of("masters") + "?limit=100", 2)).at("members").as_array().size(), 2u);
  EXPECT_EQ(body(get(members_of("masters"))).at("members").as_array().size(), 3u);
}

// Octavia looks a marker up among every member: one of another pool says where the page starts.
TEST_F(OctaviaListsTest, AMembersMarkerMayBeAMemberOfAnotherPool) {
  const model::PoolView masters = daemon_.lbs.front().pools[0];
  const model::MemberView spare_member = daemon_.lbs.front().pools[1].members[0];
  const Response r = get(members_of("masters") + "?marker=" + spare_member.id);
  ASSERT_EQ(r.status, 200) << r.body;
  // Every object was made at start-up: the order is the ids'.
  size_t after = 0;
  for (const model::MemberView& m : masters.members) after += m.id > spare_member.id ? 1 : 0;
  const json::object b = body(r);
  EXPECT_EQ(b.at("members").as_array().size(), after);
  for (const json::value& m : b.at("members").as_array()) {
    EXPECT_GT(std::string(m.at("id").as_string()), spare_member.id);
  }
}

// Octavia reads limit and sort before its API code: webob's shape; a marker later: faultstring.
TEST_F(OctaviaListsTest, ABadMarkerIsAFaultstringAndABadLimitWebobs) {
  const Response marker = get(members_of("masters") + "?marker=nope");
  EXPECT_EQ(marker.status, 400);
  EXPECT_EQ(body(marker).at("faultstring"), "Supplied pagination marker 'nope' is not valid.");
  const Response limit = get(members_of("masters") + "?limit=ten");
  EXPECT_EQ(limit.status, 400);
  EXPECT_EQ(body(limit).at("description"), "Supplied pagination limit 'ten' is not valid.");
  EXPECT_EQ(body(limit).at("title"), "Bad Request");
}

}  // namespace
}  // namespace vigil::admin
