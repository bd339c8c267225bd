// route() without sockets: auth, the Octavia paths and filters, errors and their shapes.
#include "admin/routes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <tuple>

#include "admin/auth.h"
#include "admin/fake_daemon_test.h"
#include "admin/route_table.h"
#include "admin/target.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

class RoutesTest : public ::testing::Test {
 protected:
  Response call(std::string_view method, std::string_view target, std::string_view token = "T") {
    const Request request{.method = method, .target = target, .x_auth_token = token};
    return route(request, RouteContext{.token = token_, .daemon = daemon_, .now = testing::kNow});
  }
  json::value body(const Response& r) { return json::parse(r.body); }
  std::string faultstring(const Response& r) {
    return std::string(body(r).at("faultstring").as_string());
  }

  std::string token_ = "T";
  // How often the routes asked for the views with or without the members' history.
  long views_asked(bool history) {
    return std::ranges::count(daemon_.asked, history, &testing::FakeDaemon::Asked::history);
  }

  testing::FakeDaemon daemon_;
};

TEST_F(RoutesTest, HealthzNeedsNoTokenAndShowsNothing) {
  const Response r = call("GET", "/healthz", "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok\n");
  EXPECT_TRUE(daemon_.asked.empty());
}

TEST_F(RoutesTest, HealthzAnswers503WithTheReasonWhileNotServing) {
  daemon_.problem = "stopping";
  for (const char* path : {"/healthz", "/readyz"}) {
    const Response r = call("GET", path, "");
    EXPECT_EQ(r.status, 503) << path;
    EXPECT_EQ(r.body, "not serving: stopping\n") << path;
  }
  EXPECT_TRUE(daemon_.asked.empty());
}

// /v1/status and /metrics show no member's history: they ask for the views without it, and the
// status page, which draws it, for the full ones.
TEST_F(RoutesTest, StatusAndMetricsTakeTheViewsWithoutHistory) {
  for (const char* path : {"/v1/status", "/metrics"}) {
    EXPECT_EQ(call("GET", path).status, 200) << path;
  }
  EXPECT_EQ(views_asked(false), 2);
  EXPECT_EQ(views_asked(true), 0);
  EXPECT_EQ(call("GET", "/").status, 200);
  EXPECT_EQ(views_asked(true), 1);
  EXPECT_EQ(views_asked(false), 2);
}

// ?scope= and its kin: a clear 400 for what /metrics does not take; the members' histograms only
// when asked, or when admin.metrics.member_histograms says so.
TEST_F(RoutesTest, MetricsTakeScopesAndRefuseWhatTheyDoNotKnow) {
  const Response pools = call("GET", "/metrics?scope=pool&scope=process");
  EXPECT_EQ(pools.status, 200);
  EXPECT_NE(pools.body.find("\nvigil_pool_status{"), std::string::npos);
  EXPECT_NE(pools.body.find("\nvigil_build_info{"), std::string::npos);
  EXPECT_EQ(pools.body.find("vigil_member_up"), std::string::npos);
  const Response bad = call("GET", "/metrics?scope=server");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(faultstring(bad),
            "unknown scope \"server\"; use process, listener, pool or member (repeat scope= for "
            "more)");
  EXPECT_EQ(call("GET", "/metrics?name%5B%5D=a%20b").status, 400);
  EXPECT_EQ(call("GET", "/metrics").body.find("_bucket{"), std::string::npos);
  EXPECT_NE(call("GET", "/metrics?histograms=member").body.find("_bucket{"), std::string::npos);
  const Response named = call("GET", "/metrics?name%5B%5D=vigil_member_up");
  EXPECT_NE(named.body.find("\nvigil_member_up{"), std::string::npos);
  EXPECT_EQ(named.body.find("vigil_member_status"), std::string::npos);
  const Request request{.method = "GET", .target = "/metrics", .x_auth_token = "T"};
  const Response on = route(request, RouteContext{.token = token_,
                                                  .daemon = daemon_,
                                                  .now = testing::kNow,
                                                  .metrics = {.member_histograms = true}});
  EXPECT_NE(on.body.find("_bucket{"), std::string::npos);
}

TEST_F(RoutesTest, ReadyzNeedsNoTokenAndListsEachListener) {
  const Response r = call("GET", "/readyz", "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(r.body, "ready\nok api: 2/3 members usable\n");
  EXPECT_EQ(call("POST", "/readyz", "").status, 405);
}

TEST_F(RoutesTest, ReadyzFailsWhenAListenerHasNoUsableMember) {
  for (model::MemberView& m : daemon_.lbs[0].pools[0].members) m.in_rotation = false;
  const Response r = call("GET", "/readyz", "");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "not ready\ndown api: no usable member (pool masters has 3 members)\n");
}

// A listener with no pool or an empty pool is the same on every node (Octavia builds a load
// balancer a piece at a time): it must not take a pair's addresses away.
TEST_F(RoutesTest, ReadyzLeavesOutListenersWithNoPoolOrNoMember) {
  model::LoadBalancerView building = daemon_.lbs[0];
  building.listeners[0].config.name = "new";
  building.listeners[0].default_pool_id = "not-yet";
  daemon_.lbs.push_back(building);
  Response r = call("GET", "/readyz", "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ready\nok api: 2/3 members usable\nidle new: no pool\n");
  daemon_.lbs[1].listeners[0].default_pool_id = daemon_.lbs[1].pools[0].id;
  daemon_.lbs[1].pools[0].members.clear();
  r = call("GET", "/readyz", "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ready\nok api: 2/3 members usable\nidle new: pool masters has no members\n");
  // Members that exist and none usable still count: this node cannot reach them.
  for (model::MemberView& m : daemon_.lbs[0].pools[0].members) m.in_rotation = false;
  EXPECT_EQ(call("GET", "/readyz", "").status, 503);
}

TEST_F(RoutesTest, ReadyzCountsFailOpenAsUsableAndSaysSo) {
  model::PoolView& pool = daemon_.lbs[0].pools[0];
  pool.fail_open_active = true;
  // Failing open puts in rotation the members that still take connections.
  for (model::MemberView& m : pool.members) m.in_rotation = true;
  pool.members[2].in_rotation = false;
  const Response r = call("GET", "/readyz", "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body,
            "ready\nfail-open api: no member healthy in pool masters, routing to the 2 of 3 that "
            "take connections\n");
}

TEST_F(RoutesTest, EverythingElseNeedsTheToken) {
  for (const char* path : {"/v1/status", "/metrics", "/", "/v2/lbaas/pools", "/nowhere"}) {
    const Response none = call("GET", path, "");
    EXPECT_EQ(none.status, 401) << path;
    EXPECT_EQ(none.content_type, "application/json");
    EXPECT_EQ(faultstring(none), "Authentication required");
    EXPECT_EQ(call("GET", path, "wrong").status, 401) << path;
  }
  EXPECT_TRUE(daemon_.asked.empty());
  EXPECT_EQ(call("GET", "/v1/status").status, 200);
}

TEST_F(RoutesTest, NoConfiguredTokenSaysSo) {
  token_.clear();
  const Response r = call("GET", "/v1/status", "");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(faultstring(r), "no admin token configured (admin.token_file)");
}

TEST_F(RoutesTest, BearerHeaderButNeverAQueryToken) {
  const Request bearer{.method = "GET", .target = "/metrics", .authorization = "Bearer T"};
  EXPECT_EQ(route(bearer, {.token = token_, .daemon = daemon_, .now = testing::kNow}).status, 200);
  EXPECT_EQ(call("GET", "/", "T").content_type, "text/html; charset=utf-8");
  // A token in the URL ends up in history and proxies' logs: the page signs in with a form.
  EXPECT_EQ(call("GET", "/?token=T", "").status, 401);
  EXPECT_EQ(call("GET", "/v1/status?token=T", "").status, 401);
}

TEST_F(RoutesTest, OctaviaListsUnderBothPrefixes) {
  for (const char* prefix : {"/v2", "/v2.0"}) {
    const std::string base = std::string(prefix) + "/lbaas/";
    EXPECT_EQ(body(call("GET", base + "loadbalancers")).at("loadbalancers").as_array().size(), 1u);
    EXPECT_EQ(body(call("GET", base + "listeners")).at("listeners").as_array().size(), 1u);
    EXPECT_EQ(body(call("GET", base + "pools")).at("pools").as_array().size(), 2u);
    EXPECT_EQ(body(call("GET", base + "healthmonitors")).at("healthmonitors").as_array().size(),
              1u);
  }
}

TEST_F(RoutesTest, ShowsByIdAndTheStatusTree) {
  const auto lb = testing::sample_view();
  const auto& pool = lb.pools[0];
  const auto& member = pool.members[1];
  EXPECT_EQ(body(call("GET", "/v2/lbaas/loadbalancers/" + lb.id)).at("loadbalancer").at("id"),
            json::value(lb.id));
  EXPECT_EQ(body(call("GET", "/v2/lbaas/pools/" + pool.id)).at("pool").at("name"), "masters");
  const json::value members = body(call("GET", "/v2.0/lbaas/pools/" + pool.id + "/members"));
  EXPECT_EQ(members.at("members").as_array().size(), 3u);
  const json::value one =
      body(call("GET", "/v2.0/lbaas/pools/" + pool.id + "/members/" + member.id));
  EXPECT_EQ(one.at("member").at("operating_status"), "ERROR");
  EXPECT_EQ(body(call("GET", "/v2/lbaas/healthmonitors/" + pool.health_monitor_id))
                .at("healthmonitor")
                .at("type"),
            "HTTPS");
  const json::value tree = body(call("GET", "/v2/lbaas/loadbalancers/" + lb.id + "/status"));
  EXPECT_EQ(tree.at("statuses").at("loadbalancer").at("operating_status"), "DEGRADED");
  const json::value stats =
      body(call("GET", "/v2/lbaas/listeners/" + lb.listeners[0].id + "/stats"));
  EXPECT_EQ(stats.at("stats").at("total_connections"), 240);
  EXPECT_EQ(stats.at("stats").at("active_connections"), 8);
  EXPECT_EQ(stats.at("stats").at("bytes_in"), 123456);
  EXPECT_EQ(stats.at("stats").at("bytes_out"), 654321);
  EXPECT_EQ(stats.at("stats").at("request_errors"), 5) << "rejected and no_backend";
  const json::value lb_stats = body(call("GET", "/v2/lbaas/loadbalancers/" + lb.id + "/stats"));
  EXPECT_EQ(lb_stats.at("stats").at("bytes_out"), 654321) << "the sum of its one listener";
  EXPECT_EQ(lb_stats.at("stats").at("total_connections"), 240);
}

TEST_F(RoutesTest, FiltersByIdAndName) {
  const json::value named = body(call("GET", "/v2/lbaas/pools?name=masters"));
  ASSERT_EQ(named.at("pools").as_array().size(), 1u);
  EXPECT_EQ(named.at("pools").at(0).at("name"), "masters");
  EXPECT_TRUE(body(call("GET", "/v2/lbaas/pools?name=nope")).at("pools").as_array().empty());
  const auto lb = testing::sample_view();
  const json::value by_id = body(call(
      "GET", "/v2/lbaas/pools/" + lb.pools[0].id + "/members?id=" + lb.pools[0].members[2].id));
  ASSERT_EQ(by_id.at("members").as_array().size(), 1u);
  EXPECT_EQ(by_id.at("members").at(0).at("name"), "master-03");
  // Percent-escapes in values are decoded.
  const json::value escaped = body(call("GET",
                                        "/v2/lbaas/pools/spare/members?name=%3Cscript%3E"
                                        "alert(%22x%22)%3C%2Fscript%3E"));
  EXPECT_EQ(escaped.at("members").as_array().size(), 1u);
}

TEST_F(RoutesTest, UnknownIdsAndPathsAre404WithOctaviasWording) {
  EXPECT_EQ(faultstring(call("GET", "/v2/lbaas/loadbalancers/x")), "Load Balancer x not found.");
  EXPECT_EQ(faultstring(call("GET", "/v2/lbaas/pools/x")), "Pool x not found.");
  EXPECT_EQ(faultstring(call("GET", "/v2/lbaas/listeners/x")), "Listener x not found.");
  EXPECT_EQ(faultstring(call("GET", "/v2/lbaas/healthmonitors/x")), "Health Monitor x not found.");
  EXPECT_EQ(faultstring(call("GET", "/v2/lbaas/pools/masters/members/x")), "Member x not found.");
  const Response unknown = call("GET", "/v2/lbaas/amphorae");  // Octavia's are under /octavia
  EXPECT_EQ(unknown.status, 404);
  // Octavia's web framework answers an unknown path, in webob's shape.
  EXPECT_EQ(body(unknown).at("title"), "Not Found");
  EXPECT_EQ(body(unknown).at("code"), 404);
  EXPECT_NE(body(unknown).at("description").as_string().find("amphorae"), std::string::npos);
  EXPECT_EQ(call("GET", "/v2/octavia/loadbalancers").status, 404);
  EXPECT_EQ(call("POST", "/v2/octavia/loadbalancers").status, 404);
  EXPECT_EQ(call("GET", "/v3/anything").status, 404);
}

// What Octavia 11 answers a project that has none of them (measured against it).
TEST_F(RoutesTest, TheCollectionsVigilHasNothingOfAnswerAsOctaviasEmptyOnes) {
  for (const auto& [path, expected] : {
           std::pair{"/v2/lbaas/flavors", R"({"flavors":[],"flavors_links":[]})"},
           {"/v2/lbaas/flavorprofiles", R"({"flavorprofiles":[],"flavorprofile_links":[]})"},
           {"/v2/lbaas/availabilityzones",
            R"({"availability_zones":[],"availability_zones_links":[]})"},
           {"/v2/lbaas/availabilityzoneprofiles",
            R"({"availability_zone_profiles":[],"availability_zone_profile_links":[]})"},
           {"/v2.0/lbaas/l7policies?listener_id=x", R"({"l7policies":[],"l7policies_links":[]})"},
           {"/v2/octavia/amphorae", R"({"amphorae":[],"amphorae_links":[]})"},
           {"/v2/lbaas/quotas", R"({"quotas":[],"quotas_links":[]})"},
           {"/v2/lbaas/providers?fields=name", R"({"providers":[{"name":"vigil"}]})"},
           {"/v2/lbaas/providers/vigil/flavor_capabilities", R"({"flavor_capabilities":[]})"},
           {"/v2", R"("v2")"},
           {"/v2.0/lbaas", R"("v2")"},
       }) {
    const Response r = call("GET", path);
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_EQ(r.body, expected) << path;
  }
  const std::string defaults =
      R"({"quota":{"load_balancer":-1,"listener":-1,"member":-1,"pool":-1,"health_monitor":-1,)"
      R"("l7policy":-1,"l7rule":-1}})";
  EXPECT_EQ(call("GET", "/v2/lbaas/quotas/defaults").body, defaults);
  EXPECT_EQ(call("GET", "/v2/lbaas/quotas/p1").body, defaults);
  EXPECT_EQ(call("GET", "/v2/lbaas/quotas/p1/default").body, defaults);
  EXPECT_EQ(faultstring(call("GET", "/v2/lbaas/flavors/f1")), "Flavor f1 not found.");
  EXPECT_EQ(faultstring(call("GET", "/v2/lbaas/availabilityzones/az")),
            "Availability Zone az not found.");
  EXPECT_EQ(faultstring(call("GET", "/v2/lbaas/l7policies/x")), "L7 Policy x not found.");
  EXPECT_EQ(faultstring(call("GET", "/v2/octavia/amphorae/x")), "Amphora x not found.");
  EXPECT_EQ(faultstring(call("GET", "/v2/lbaas/flavors?colour=red")),
            "One or more arguments are either duplicate or invalid");
  EXPECT_EQ(faultstring(call("GET", "/v2/lbaas/providers/octavia/flavor_capabilities")),
            "Provider 'octavia' is not enabled.");
  EXPECT_EQ(call("PUT", "/v2/lbaas/quotas/p1").status, 405);
  EXPECT_EQ(call("POST", "/v2/lbaas/flavors").status, 405);
  EXPECT_EQ(faultstring(call("DELETE", "/v2/lbaas/flavors/f1")), "Flavor f1 not found.");
}

TEST_F(RoutesTest, AnL7PolicyCreateIsTheProvidersFiveHundredAndOne) {
  const auto lb = testing::sample_view();
  const auto post = [&](std::string_view body) {
    const Request request{
        .method = "POST", .target = "/v2/lbaas/l7policies", .x_auth_token = "T", .body = body};
    return route(request, RouteContext{.token = token_, .daemon = daemon_, .now = testing::kNow});
  };
  const Response r =
      post(R"({"l7policy": {"listener_id": ")" + lb.listeners[0].id + R"(", "action": "REJECT"}})");
  EXPECT_EQ(r.status, 501);
  EXPECT_EQ(faultstring(r),
            "Provider 'vigil' does not support a requested action: This provider does not "
            "support creating l7policies.");
  EXPECT_EQ(faultstring(post(R"({"l7policy": {"listener_id": "nope"}})")),
            "Listener nope not found.");
  EXPECT_EQ(post(R"({"l7policy": {}})").status, 400);
  EXPECT_EQ(post("{").status, 400);
}

TEST_F(RoutesTest, TheRootIsOctaviasVersionDocumentForJsonClientsWithoutAToken) {
  const Request json_client{
      .method = "GET", .target = "/", .host = "lb.example:8404", .accept = "application/json"};
  const Response r =
      route(json_client, RouteContext{.token = token_, .daemon = daemon_, .now = testing::kNow});
  ASSERT_EQ(r.status, 200);
  const json::value doc = body(r);
  const json::array& versions = doc.at("versions").as_array();
  ASSERT_EQ(versions.size(), 27u);
  EXPECT_EQ(versions.back().at("id"), "v2.26");
  EXPECT_EQ(versions.back().at("status"), "CURRENT");
  EXPECT_EQ(versions.front().at("links").at(0).at("href"), "http://lb.example:8404/v2");
  // A browser gets the page (here: asked for its token).
  const Request browser{
      .method = "GET", .target = "/", .accept = "text/html,application/json;q=0.9"};
  EXPECT_EQ(
      route(browser, RouteContext{.token = token_, .daemon = daemon_, .now = testing::kNow}).status,
      401);
}

TEST_F(RoutesTest, ListLinksAreAbsoluteFromTheHostOrTheConfiguredEndpoint) {
  const auto links = [&](std::string_view endpoint) {
    const Request request{.method = "GET",
                          .target = "/v2/lbaas/pools/masters/members?limit=1",
                          .x_auth_token = "T",
                          .host = "10.0.0.1:8404"};
    const Response r = route(
        request,
        RouteContext{
            .token = token_, .public_endpoint = endpoint, .daemon = daemon_, .now = testing::kNow});
    return std::string(body(r).at("members_links").at(0).at("href").as_string());
  };
  EXPECT_TRUE(links("").starts_with("http://10.0.0.1:8404/v2/lbaas/pools/masters/members?limit=1"));
  EXPECT_TRUE(links("https://cloud.example/load-balancer")
                  .starts_with("https://cloud.example/load-balancer/v2/lbaas/pools/masters/"));
}

TEST_F(RoutesTest, FieldsOnOneObject) {
  const json::value pool = body(call("GET", "/v2/lbaas/pools/masters?fields=id,name"));
  EXPECT_EQ(pool.at("pool").as_object().size(), 2u);
  EXPECT_EQ(pool.at("pool").at("name"), "masters");
}

TEST_F(RoutesTest, WritesAreRefused) {
  const auto lb = testing::sample_view();
  const Response put = call("PUT", "/v2/lbaas/pools/" + lb.pools[0].id);
  EXPECT_EQ(put.status, 409);
  EXPECT_EQ(faultstring(put),
            "objects from /etc/vigil/vigil.yaml are read-only through the API: edit the file and "
            "reload");
  EXPECT_EQ(call("DELETE", "/v2/lbaas/pools/masters/members/master-01").status, 409);
  EXPECT_EQ(call("POST", "/v2/lbaas/pools/masters/members").status, 409);
  const Response create = call("POST", "/v2/lbaas/loadbalancers");
  EXPECT_EQ(create.status, 405);
  EXPECT_NE(faultstring(create).find("Method not allowed"), std::string::npos);
  EXPECT_EQ(call("POST", "/v1/status").status, 405);
  EXPECT_EQ(call("POST", "/healthz", "").status, 405);
}

TEST(Auth, PresentedTokenAndComparison) {
  EXPECT_EQ(presented_token("abc", ""), "abc");
  EXPECT_EQ(presented_token("", "Bearer abc"), "abc");
  EXPECT_EQ(presented_token("", "bearer  abc "), "abc");
  EXPECT_EQ(presented_token("", "Basic abc"), "");
  EXPECT_TRUE(token_matches("secret", "secret"));
  EXPECT_FALSE(token_matches("secret", "secreT"));
  EXPECT_FALSE(token_matches("secret", "secret2"));
  EXPECT_FALSE(token_matches("", ""));
}

TEST(Target, SplitsAndDecodes) {
  const Target t = *parse_target("/v2.0//lbaas/pools/?name=a+b%21&id=&x");
  EXPECT_EQ(t.segments, (std::vector<std::string>{"v2.0", "lbaas", "pools"}));
  EXPECT_EQ(t.param("name"), "a b!");
  EXPECT_EQ(t.param("id"), "");
  EXPECT_EQ(t.param("x"), "");
  EXPECT_EQ(t.param("y"), std::nullopt);
  EXPECT_EQ(parse_target("/a%2F%20b").value().segments, std::vector<std::string>{"a/ b"});
  EXPECT_EQ(parse_target("/?a=1&&b=%26").value().query, (Target::Query{{"a", "1"}, {"b", "&"}}));
}

TEST(Target, AMalformedTargetIsAnError) {
  for (const char* bad : {"/a%2", "/a%zz", "/a b", "http://h/x", "", "x"}) {
    EXPECT_FALSE(parse_target(bad).has_value()) << bad;
  }
  EXPECT_EQ(parse_form("a=1&b=x+y"), (Target::Query{{"a", "1"}, {"b", "x y"}}));
  EXPECT_FALSE(parse_form("a=%zz").has_value());
}

// A 405 names what the path's rows take, whatever the method asked.
TEST_F(RoutesTest, AWrongMethodIsToldTheRowsMethods) {
  for (const auto& [method, path, allow] :
       {std::tuple{"GET", "/v1/reload", "POST"},
        {"DELETE", "/v1/sessions", "GET"},
        {"GET", "/v1/sessions/kill", "POST"},
        {"DELETE", "/v1/pools/masters/members/master-01/admin", "GET, PUT"}}) {
    const Response r = call(method, path);
    EXPECT_EQ(r.status, 405) << path;
    ASSERT_EQ(r.headers.size(), 1u) << path;
    EXPECT_EQ(r.headers[0].second, allow) << path;
  }
  EXPECT_EQ(faultstring(call("GET", "/v1/reload")),
            "Method not allowed: this path only answers POST");
  EXPECT_EQ(faultstring(call("POST", "/v1/pools/masters/members/master-01/admin")),
            "Method not allowed: this path answers GET and PUT");
  // The read token may learn that a write path takes another method, not more.
  EXPECT_EQ(call("POST", "/v1/nowhere").status, 404);
}

TEST(RouteTable, PathPatterns) {
  using S = std::vector<std::string>;
  EXPECT_TRUE(path_matches("/", S{}));
  EXPECT_FALSE(path_matches("/", S{"x"}));
  EXPECT_TRUE(path_matches("/v2|v2.0/lbaas/*", S{"v2.0", "lbaas"}));
  EXPECT_TRUE(path_matches("/v2|v2.0/lbaas/*", S{"v2", "lbaas", "pools", "p"}));
  EXPECT_FALSE(path_matches("/v2|v2.0/lbaas/*", S{"v3", "lbaas"}));
  EXPECT_TRUE(path_matches("/v1/pools/{pool}/members/{m}/admin",
                           S{"v1", "pools", "a/b", "members", "m", "admin"}));
  EXPECT_FALSE(
      path_matches("/v1/pools/{pool}/members/{m}/admin", S{"v1", "pools", "a", "members", "m"}));
}

}  // namespace
}  // namespace vigil::admin
