// The member override route (/v1/pools/{pool}/members/{member}/admin) and `openstack loadbalancer
// member set` on a config file's member, through route() without sockets, against a fake daemon
// (fake_daemon_test.h) that records the override and shows it in its views.
#include "admin/member_admin.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "admin/fake_daemon_test.h"
#include "admin/override_json.h"
#include "admin/routes.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

class MemberAdminTest : public ::testing::Test {
 protected:
  Response call(std::string_view method, std::string_view target, std::string_view body = "",
                std::string_view token = "T") {
    const Request request{.method = method, .target = target, .x_auth_token = token, .body = body};
    return route(request, RouteContext{.token = "T", .daemon = daemon_, .now = testing::kNow});
  }
  json::value body(const Response& r) { return json::parse(r.body); }
  std::string faultstring(const Response& r) {
    return std::string(body(r).at("faultstring").as_string());
  }
  model::MemberView& master01() { return daemon_.lbs[0].pools[0].members[0]; }
  json::value admin_of(const Response& r) { return body(r).at("member").at("admin_override"); }

  testing::FakeDaemon daemon_;
  const std::string path_ = "/v1/pools/masters/members/master-01/admin";
};

TEST_F(MemberAdminTest, APutSetsTheOverrideAndAnswersTheMembersNewView) {
  const Response r = call("PUT", path_, R"({"state": "drain"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(daemon_.override_calls, 1);
  ASSERT_TRUE(master01().admin_override);
  EXPECT_EQ(master01().admin_override->state, model::AdminState::kDrain);
  EXPECT_EQ(admin_of(r).at("state"), "drain");
  EXPECT_EQ(admin_of(r).at("weight"), nullptr);
  EXPECT_EQ(admin_of(r).at("by"), "API");
  EXPECT_EQ(admin_of(r).at("set_at"), "2024-05-01T12:01:40Z");
  EXPECT_EQ(body(r).at("member").at("pool"), "masters");

  // A weight keeps the drain; GET shows both; the id works as well as the name.
  const std::string by_id =
      "/v1/pools/" + daemon_.lbs[0].pools[0].id + "/members/" + master01().id + "/admin";
  EXPECT_EQ(call("PUT", by_id, R"({"weight": 0, "by": "CLI"})").status, 200);
  const Response shown = call("GET", path_);
  ASSERT_EQ(shown.status, 200);
  EXPECT_EQ(admin_of(shown).at("state"), "drain");
  EXPECT_EQ(admin_of(shown).at("weight"), 0);
  EXPECT_EQ(admin_of(shown).at("by"), "CLI");

  // ready clears it all.
  const Response ready = call("PUT", path_, R"({"state": "ready"})");
  EXPECT_EQ(ready.status, 200);
  EXPECT_FALSE(master01().admin_override);
  EXPECT_EQ(admin_of(ready), nullptr);
}

// Over the Unix socket the kernel's name for the peer replaces whatever user the client claims.
TEST_F(MemberAdminTest, TheUnixSocketsPeerNamesWhoSetIt) {
  const Request request{.method = "PUT",
                        .target = path_,
                        .x_auth_token = "T",
                        .body = R"j({"state": "drain", "by": "CLI (mallory)"})j",
                        .peer_user = "alice"};
  const Response r =
      route(request, RouteContext{.token = "T", .daemon = daemon_, .now = testing::kNow});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(admin_of(r).at("by"), "CLI (alice)");
}

TEST(CreditedBy, PutsThePeerInPlaceOfTheClaim) {
  struct Case {
    const char* description;
    const char* claimed;
    const char* peer_user;
    const char* expected;
  };
  const Case cases[] = {
      {.description = "TCP: the claim stands",
       .claimed = "CLI (mallory)",
       .peer_user = "",
       .expected = "CLI (mallory)"},
      {.description = "a claimed user is replaced",
       .claimed = "CLI (mallory)",
       .peer_user = "alice",
       .expected = "CLI (alice)"},
      {.description = "no user claimed",
       .claimed = "API",
       .peer_user = "alice",
       .expected = "API (alice)"},
      {.description = "nothing claimed", .claimed = "", .peer_user = "root", .expected = "root"},
      {.description = "root (through sudo) says for whom",
       .claimed = "CLI (alice)",
       .peer_user = "root",
       .expected = "CLI (root, for alice)"},
      {.description = "root claiming root",
       .claimed = "CLI (root)",
       .peer_user = "root",
       .expected = "CLI (root)"},
      {.description = "only root may speak for another",
       .claimed = "CLI (alice)",
       .peer_user = "mallory",
       .expected = "CLI (mallory)"},
      {.description = "only a user claimed",
       .claimed = " (mallory)",
       .peer_user = "alice",
       .expected = "alice"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(credited_by(c.claimed, c.peer_user), c.expected) << c.description;
  }
}

TEST_F(MemberAdminTest, BadBodiesAnswer400AndChangeNothing) {
  struct Case {
    const char* body;
    const char* message;  // a part of the faultstring
  };
  const Case cases[] = {
      {.body = "{not json", .message = "the body is not valid JSON"},
      {.body = "[1]", .message = "the body must be a JSON object"},
      {.body = "{}", .message = "give state (ready, drain or maint) or weight (0 to 256)"},
      {.body = R"({"state": "off"})",
       .message = "state must be ready, drain or maint (got \"off\")"},
      {.body = R"({"state": "DRAIN"})", .message = "state must be ready, drain or maint"},
      {.body = R"({"weight": 257})", .message = "weight must be a whole number from 0 to 256"},
      {.body = R"({"weight": -1})", .message = "weight must be a whole number from 0 to 256"},
      {.body = R"({"weight": "3"})", .message = "weight must be a whole number"},
      {.body = R"({"weight": 1.5})", .message = "weight must be a whole number"},
      {.body = R"({"state": "drain", "enabled": false})", .message = "unknown field \"enabled\""},
      {.body = R"({"state": "drain", "by": ""})", .message = "by must be a string of 1 to 64"},
  };
  for (const Case& c : cases) {
    const Response r = call("PUT", path_, c.body);
    EXPECT_EQ(r.status, 400) << c.body;
    EXPECT_NE(faultstring(r).find(c.message), std::string::npos) << c.body << ": " << r.body;
  }
  EXPECT_EQ(daemon_.override_calls, 0);
}

TEST_F(MemberAdminTest, UnknownNamesTokensAndMethods) {
  EXPECT_EQ(call("PUT", "/v1/pools/nope/members/master-01/admin", R"({"state": "drain"})").status,
            404);
  const Response member = call("PUT", "/v1/pools/masters/members/master-09/admin", "{}");
  EXPECT_EQ(member.status, 404);
  EXPECT_EQ(faultstring(member), "Member master-09 not found in pool masters.");
  EXPECT_EQ(call("GET", "/v1/pools/masters/members/master-01").status, 404);
  EXPECT_EQ(call("PUT", path_, R"({"state": "drain"})", "").status, 401);
  EXPECT_EQ(call("PUT", path_, R"({"state": "drain"})", "wrong").status, 401);
  const Response post = call("POST", path_, R"({"state": "drain"})");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(daemon_.override_calls, 0);
}

TEST_F(MemberAdminTest, ASaveThatFailsIs500) {
  daemon_.override_error = "cannot save the API objects: /var/lib/vigil/state.json: disk full";
  const Response r = call("PUT", path_, R"({"state": "maint"})");
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(faultstring(r).find("disk full"), std::string::npos);
  EXPECT_FALSE(master01().admin_override);
}

TEST_F(MemberAdminTest, APoolNameInTwoLoadBalancersNeedsItsIdOrLbSlashPool) {
  model::LoadBalancerView other = testing::sample_view();
  other.id = "other-lb-id";
  other.name = "other";
  other.pools[0].id = "other-pool-id";
  daemon_.lbs.push_back(other);
  const Response r = call("PUT", path_, R"({"state": "drain"})");
  EXPECT_EQ(r.status, 409);
  EXPECT_NE(faultstring(r).find("give the pool's id or LB/POOL"), std::string::npos) << r.body;
  EXPECT_NE(faultstring(r).find("other/masters (id other-pool-id)"), std::string::npos);
  EXPECT_EQ(
      call("PUT", "/v1/pools/vigil%2Fmasters/members/master-01/admin", R"({"state": "drain"})")
          .status,
      200);
  EXPECT_TRUE(master01().admin_override);
  EXPECT_EQ(call("GET", "/v1/pools/other-pool-id/members/master-01/admin").status, 200);
}

TEST_F(MemberAdminTest, TheStatusPageAndStatusJsonShowTheOverride) {
  ASSERT_EQ(call("PUT", path_, R"j({"state": "maint", "weight": 2, "by": "CLI (alice)"})j").status,
            200);
  const Response page = call("GET", "/");
  // The operator's override has a column of its own beside the last check's reason.
  EXPECT_NE(
      page.body.find(R"(<td class="override">maint, weight 2, set 0s ago by CLI (alice)</td>)"),
      std::string::npos);
  const json::value status = body(call("GET", "/v1/status"));
  const json::value& o = status.at("pools").at(0).at("members").at(0).at("admin_override");
  EXPECT_EQ(o.at("state"), "maint");
  EXPECT_EQ(o.at("weight"), 2);
  EXPECT_EQ(status.at("pools").at(0).at("members").at(1).at("admin_override"), nullptr);
}

// `openstack loadbalancer member set` on a file member: --weight, --disable, --enable.
TEST_F(MemberAdminTest, OctaviaMemberSetOnAFileMemberIsARuntimeOverride) {
  const std::string member =
      "/v2/lbaas/pools/" + daemon_.lbs[0].pools[0].id + "/members/" + master01().id;
  Response r = call("PUT", member, R"({"member": {"weight": 0}})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body(r).at("member").at("weight"), 0);
  EXPECT_EQ(body(r).at("member").at("vigil_admin_override").at("by"), "Octavia API");
  r = call("PUT", member, R"({"member": {"admin_state_up": false}})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body(r).at("member").at("admin_state_up"), false);
  EXPECT_EQ(master01().admin_override->state, model::AdminState::kMaint);
  r = call("PUT", member, R"({"member": {"admin_state_up": true}})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(master01().admin_override) << "--enable is ready: the override is gone";
  EXPECT_EQ(body(r).at("member").at("admin_state_up"), true);

  EXPECT_EQ(call("PUT", member, R"({"member": {"weight": 300}})").status, 400);
  const Response other = call("PUT", member, R"({"member": {"name": "x"}})");
  EXPECT_EQ(other.status, 409);
  EXPECT_NE(faultstring(other).find("read-only"), std::string::npos) << other.body;
  EXPECT_EQ(call("DELETE", member).status, 409) << "still the file's";
  EXPECT_EQ(daemon_.override_calls, 3);
}

TEST_F(MemberAdminTest, OctaviaMemberSetOverTheUnixSocketNamesThePeer) {
  const std::string member =
      "/v2/lbaas/pools/" + daemon_.lbs[0].pools[0].id + "/members/" + master01().id;
  const Request request{.method = "PUT",
                        .target = member,
                        .x_auth_token = "T",
                        .body = R"({"member": {"weight": 0}})",
                        .peer_user = "alice"};
  const Response r =
      route(request, RouteContext{.token = "T", .daemon = daemon_, .now = testing::kNow});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body(r).at("member").at("vigil_admin_override").at("by"), "Octavia API (alice)");
}

}  // namespace
}  // namespace vigil::admin
