// The session routes without sockets: names resolved to member ids, errors, the deferred answer
// and its JSON shape.
#include "admin/sessions.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "admin/fake_daemon_test.h"
#include "admin/routes.h"
#include "model/ids.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

class SessionsTest : public ::testing::Test {
 protected:
  // The answer, the deferred one included (the fake daemon answers at once).
  Response call(std::string_view method, std::string_view target, std::string_view body = "") {
    const Request request{.method = method, .target = target, .x_auth_token = "T", .body = body};
    Response r =
        route(request, RouteContext{.token = "T", .daemon = daemon_, .now = testing::kNow});
    if (!r.later) return r;
    Response answer;
    bool answered = false;
    r.later([&](Response a) {
      answer = std::move(a);
      answered = true;
    });
    EXPECT_TRUE(answered);
    return answer;
  }
  json::value body(const Response& r) { return json::parse(r.body); }

  std::string id(const char* pool, const char* member) {
    return model::member_id("vigil", pool, member);
  }

  testing::FakeDaemon daemon_;
};

TEST_F(SessionsTest, ListsEverySessionWithoutAFilter) {
  daemon_.table = SessionTable{.rows = {{.id = "0-7",
                                         .listener = "api",
                                         .pool = "masters",
                                         .member = "master-01",
                                         .client = "10.0.0.5:51234",
                                         .member_address = "10.0.0.11:6443",
                                         .age_seconds = 12.5,
                                         .bytes_in = 123,
                                         .bytes_out = 456}},
                               .total = 3};
  const Response r = call("GET", "/v1/sessions");
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_TRUE(daemon_.listed.has_value());
  EXPECT_FALSE(daemon_.listed->has_value()) << "no filter: every member";
  EXPECT_EQ(daemon_.list_limit, kMaxListedSessions);
  EXPECT_EQ(body(r), json::parse(R"({"sessions":[{"id":"0-7","listener":"api","pool":"masters",
      "member":"master-01","client":"10.0.0.5:51234","member_address":"10.0.0.11:6443",
      "age_seconds":12.5,"bytes_in":123,"bytes_out":456}],"total":3,"truncated":true})"));
}

TEST_F(SessionsTest, FiltersResolveToMemberIds) {
  call("GET", "/v1/sessions?pool=masters&member=master-02");
  EXPECT_EQ(**daemon_.listed, std::vector<std::string>{id("masters", "master-02")});
  call("GET", "/v1/sessions?pool=masters");
  EXPECT_EQ(daemon_.listed->value().size(), 3u);
  call("GET", "/v1/sessions?member=master-03");
  EXPECT_EQ(**daemon_.listed, std::vector<std::string>{id("masters", "master-03")});
  EXPECT_EQ(body(call("GET", "/v1/sessions?member=master-03")).at("truncated"), false);
}

TEST_F(SessionsTest, UnknownPoolOrMemberIs404) {
  for (const char* target : {"/v1/sessions?pool=nope", "/v1/sessions?member=nope",
                             "/v1/sessions?pool=masters&member=nope"}) {
    const Response r = call("GET", target);
    EXPECT_EQ(r.status, 404) << target;
    EXPECT_NE(r.body.find("nope"), std::string::npos) << r.body;
  }
  EXPECT_FALSE(daemon_.listed.has_value()) << "nothing asked of the workers";
}

TEST_F(SessionsTest, AWorkerThatDoesNotAnswerIs503) {
  daemon_.table = fail("worker 1 did not answer within 2 s");
  const Response r = call("GET", "/v1/sessions");
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.body.find("worker 1"), std::string::npos);
}

TEST_F(SessionsTest, KillClosesTheMembersSessions) {
  const Response r =
      call("POST", "/v1/sessions/kill", R"({"pool":"masters","member":"master-01"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(*daemon_.killed, std::vector<std::string>{id("masters", "master-01")});
  EXPECT_EQ(body(r), json::parse(R"({"killed":2})"));
  EXPECT_EQ(call("POST", "/v1/sessions/kill", R"({"member":"master-02"})").status, 200);
  EXPECT_EQ(*daemon_.killed, std::vector<std::string>{id("masters", "master-02")});
}

TEST_F(SessionsTest, KillNeedsAUniqueMember) {
  model::MemberView twin = daemon_.lbs[0].pools[0].members[0];
  twin.id = id("spare", "master-01");
  daemon_.lbs[0].pools[1].members.push_back(twin);
  const Response ambiguous = call("POST", "/v1/sessions/kill", R"({"member":"master-01"})");
  EXPECT_EQ(ambiguous.status, 409);
  EXPECT_NE(ambiguous.body.find("give the pool"), std::string::npos) << ambiguous.body;
  EXPECT_EQ(call("POST", "/v1/sessions/kill", R"({"pool":"spare"})").status, 400);
  EXPECT_EQ(call("POST", "/v1/sessions/kill", "not json").status, 400);
  EXPECT_EQ(call("POST", "/v1/sessions/kill", R"({"member":"x","extra":1})").status, 400);
  EXPECT_EQ(call("POST", "/v1/sessions/kill", R"({"member":"nope"})").status, 404);
  EXPECT_FALSE(daemon_.killed.has_value());
  EXPECT_EQ(call("GET", "/v1/sessions/kill").status, 405);
  EXPECT_EQ(call("DELETE", "/v1/sessions").status, 405);
}

}  // namespace
}  // namespace vigil::admin
