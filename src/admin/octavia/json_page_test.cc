// Octavia's sort, marker, limit, fields and links, as octavia/api/common/pagination.py has them.
#include "admin/octavia/json_page.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace vigil::admin {
namespace {

namespace json = boost::json;

// Five load balancers in vigil's order; b and d were created later than the others.
// Octavia's order is then a c e b d (created_at, then id).
std::vector<json::object> five() {
  std::vector<json::object> out;
  for (const auto& [id, name, created] : {std::tuple{"id-a", "e", "2026-01-01T00:00:00"},
                                          {"id-b", "d", "2026-01-02T00:00:00"},
                                          {"id-c", "c", "2026-01-01T00:00:00"},
                                          {"id-d", "b", "2026-01-02T00:00:00"},
                                          {"id-e", "a", "2026-01-01T00:00:00"}}) {
    out.push_back(json::object{
        {"id", id}, {"name", name}, {"created_at", created}, {"provisioning_status", "ACTIVE"}});
  }
  return out;
}

json::object paged(std::string_view query,
                   const std::vector<bool>& matches = {true, true, true, true, true}) {
  auto body = page("loadbalancers", five(), matches,
                   *parse_target(std::string("/v2/lbaas/loadbalancers") + std::string(query)));
  EXPECT_TRUE(body.has_value()) << query << ": " << (body ? "" : body.error().message);
  return body ? *body : json::object();
}

std::string ids(const json::object& body) {
  std::string out;
  for (const json::value& o : body.at("loadbalancers").as_array()) {
    out += (out.empty() ? "" : " ") + std::string(o.at("id").as_string());
  }
  return out;
}

std::string error(std::string_view query) {
  auto body = page("loadbalancers", five(), {true, true, true, true, true},
                   *parse_target(std::string("/v2/lbaas/loadbalancers") + std::string(query)));
  EXPECT_FALSE(body.has_value()) << query;
  return body ? std::string() : body.error().message;
}

TEST(JsonPage, WithoutASortObjectsComeByCreatedAtThenId) {
  const json::object all = paged("");
  EXPECT_EQ(ids(all), "id-a id-c id-e id-b id-d");
  EXPECT_EQ(all.at("loadbalancers_links").as_array().size(), 0u);  // one page, no links
}

TEST(JsonPage, SortKeysAndDirectionsInBothSpellings) {
  EXPECT_EQ(ids(paged("?sort=name")), "id-e id-d id-c id-b id-a");
  EXPECT_EQ(ids(paged("?sort=created_at:desc,name:asc")), "id-d id-b id-e id-c id-a");
  EXPECT_EQ(ids(paged("?sort_key=name&sort_dir=DESC")), "id-a id-b id-c id-d id-e");
  EXPECT_EQ(ids(paged("?sort_key=created_at,name&sort_dir=desc")), "id-d id-b id-e id-c id-a");
}

TEST(JsonPage, AnEmptySortIsNoneAndMissingDirectionsAreAscending) {
  EXPECT_EQ(ids(paged("?sort=")), "id-a id-c id-e id-b id-d");
  EXPECT_EQ(ids(paged("?sort=&sort_key=name")), "id-e id-d id-c id-b id-a");
  EXPECT_EQ(ids(paged("?sort_key=&sort_dir=desc")), "id-a id-c id-e id-b id-d");
  // Directions beyond the keys are not read.
  EXPECT_EQ(ids(paged("?sort_key=name&sort_dir=desc,sideways")), "id-a id-b id-c id-d id-e");
}

TEST(JsonPage, AnEmptySortIsLeftOutOfTheLinks) {
  EXPECT_EQ(json::serialize(paged("?sort=&sort_key=&limit=4").at("loadbalancers_links")),
            R"([{"rel":"next","href":"/v2/lbaas/loadbalancers?limit=4&marker=id-b"}])");
}

// Octavia reads limit and sort in a hook before its API code: those errors are webob's shape.
TEST(JsonPage, ErrorsOfTheQuerysShapeComeBeforeThoseOfItsKeys) {
  const auto framework = [](std::string_view query) {
    auto body = page("loadbalancers", five(), {true, true, true, true, true},
                     *parse_target(std::string("/v2/lbaas/loadbalancers") + std::string(query)));
    return !body && body.error().framework;
  };
  EXPECT_TRUE(framework("?limit=ten"));
  EXPECT_TRUE(framework("?sort=name:up"));
  EXPECT_TRUE(framework("?sort=a:b:c"));
  EXPECT_FALSE(framework("?sort=colour"));
  EXPECT_FALSE(framework("?marker=nope"));
  EXPECT_FALSE(framework("?limit=0"));
}

TEST(JsonPage, TiesUnderAnySortAreBrokenByCreatedAtThenIdAscending) {
  EXPECT_EQ(ids(paged("?sort=created_at")), "id-a id-c id-e id-b id-d");
  EXPECT_EQ(ids(paged("?sort=created_at:desc")), "id-b id-d id-a id-c id-e");
  EXPECT_EQ(ids(paged("?sort=provisioning_status:desc")), "id-a id-c id-e id-b id-d");
  // id given as a key keeps its own direction.
  EXPECT_EQ(ids(paged("?sort=provisioning_status,id:desc")), "id-e id-d id-c id-b id-a");
}

TEST(JsonPage, LimitAndMarkerWalkThePagesWithOctaviasLinks) {
  const json::object first = paged("?limit=2");
  EXPECT_EQ(ids(first), "id-a id-c");
  EXPECT_EQ(json::serialize(first.at("loadbalancers_links")),
            R"([{"rel":"next","href":"/v2/lbaas/loadbalancers?limit=2&marker=id-c"}])");
  const json::object second = paged("?limit=2&marker=id-c");
  EXPECT_EQ(ids(second), "id-e id-b");
  EXPECT_EQ(
      json::serialize(second.at("loadbalancers_links")),
      R"([{"rel":"previous","href":"/v2/lbaas/loadbalancers?limit=2&marker=id-e&page_reverse=True"},)"
      R"({"rel":"next","href":"/v2/lbaas/loadbalancers?limit=2&marker=id-b"}])");
  const json::object last = paged("?limit=2&marker=id-b");
  EXPECT_EQ(ids(last), "id-d");
  EXPECT_EQ(last.at("loadbalancers_links").as_array().size(), 1u);  // previous only
  // Octavia's page_reverse: the first objects before the marker, in the same order.
  EXPECT_EQ(ids(paged("?limit=2&marker=id-b&page_reverse=True")), "id-a id-c");
  // Sort parameters ride along in the links.
  const json::object sorted = paged("?limit=1&sort=name:desc");
  EXPECT_EQ(
      json::serialize(sorted.at("loadbalancers_links")),
      R"([{"rel":"next","href":"/v2/lbaas/loadbalancers?limit=1&sort=name:desc&marker=id-a"}])");
}

TEST(JsonPage, LinksStartWithTheTargetsBase) {
  Target t = *parse_target("/load-balancer/v2/lbaas/loadbalancers?limit=4");
  t.link_base = "https://cloud.example";
  auto body = page("loadbalancers", five(), {true, true, true, true, true}, t);
  ASSERT_TRUE(body.has_value());
  EXPECT_EQ(json::serialize(body->at("loadbalancers_links")),
            R"([{"rel":"next","href":"https://cloud.example/load-balancer/v2/lbaas/)"
            R"(loadbalancers?limit=4&marker=id-b"}])");
}

TEST(JsonPage, AMarkerWithoutALimitGetsAPreviousLinkWithOctaviasMaximum) {
  const json::object rest = paged("?marker=id-c");
  EXPECT_EQ(ids(rest), "id-e id-b id-d");
  EXPECT_EQ(json::serialize(rest.at("loadbalancers_links")),
            R"([{"rel":"previous","href":"/v2/lbaas/loadbalancers?limit=1000&marker=id-e&)"
            R"(page_reverse=True"}])");
}

TEST(JsonPage, InfiniteMeansEveryObject) {
  EXPECT_EQ(ids(paged("?limit=infinite")), "id-a id-c id-e id-b id-d");
  EXPECT_EQ(ids(paged("")), "id-a id-c id-e id-b id-d");
}

// Octavia's pagination_max_limit (1,000 by default): the page size without a limit, and the
// largest one a limit gets.
std::expected<json::object, PageError> many(size_t n, std::string_view query) {
  std::vector<json::object> objects;
  for (size_t i = 0; i < n; ++i) {
    objects.push_back(
        json::object{{"id", fmt::format("id-{:05}", i)}, {"created_at", "2026-01-01T00:00:00"}});
  }
  return page("loadbalancers", std::move(objects), std::vector<bool>(n, true),
              *parse_target(std::string("/v2/lbaas/loadbalancers") + std::string(query)));
}

TEST(JsonPage, WithoutALimitAPageHoldsOctaviasMaximumAndLinksToTheNext) {
  for (std::string_view query : {"", "?limit=5000"}) {
    auto body = many(1001, query);
    ASSERT_TRUE(body.has_value()) << query;
    EXPECT_EQ(body->at("loadbalancers").as_array().size(), 1000u) << query;
    EXPECT_EQ(json::serialize(body->at("loadbalancers_links")),
              R"([{"rel":"next","href":"/v2/lbaas/loadbalancers?limit=1000&marker=id-00999"}])")
        << query;
  }
  auto rest = many(1001, "?marker=id-00999");
  ASSERT_TRUE(rest.has_value());
  EXPECT_EQ(rest->at("loadbalancers").as_array().size(), 1u);
  auto all = many(1001, "?limit=infinite");
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->at("loadbalancers").as_array().size(), 1001u);
  EXPECT_TRUE(all->at("loadbalancers_links").as_array().empty());
}

TEST(JsonPage, TheTargetsMaximumIsThePageSizeAndCutsALargerLimit) {
  for (std::string_view query : {"", "?limit=7", "?limit=2"}) {
    Target t = *parse_target(std::string("/v2/lbaas/loadbalancers") + std::string(query));
    t.page_max_limit = 2;
    auto body = page("loadbalancers", five(), {true, true, true, true, true}, t);
    ASSERT_TRUE(body.has_value()) << query;
    EXPECT_EQ(ids(*body), "id-a id-c") << query;
    EXPECT_EQ(json::serialize(body->at("loadbalancers_links")),
              R"([{"rel":"next","href":"/v2/lbaas/loadbalancers?limit=2&marker=id-c"}])")
        << query;
  }
  Target t = *parse_target("/v2/lbaas/loadbalancers?limit=infinite");
  t.page_max_limit = 2;
  auto all = page("loadbalancers", five(), {true, true, true, true, true}, t);
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(ids(*all), "id-a id-c id-e id-b id-d");
}

// Octavia 11 answers these with a 500 (it takes them for no limit, then fails building links).
TEST(JsonPage, ALimitBelowOneOrGivenTwiceIsAClearFourHundred) {
  EXPECT_EQ(error("?limit=0"),
            "Supplied pagination limit '0' is not valid: a limit is 1 or more, or 'infinite'");
  EXPECT_EQ(error("?limit=-1"),
            "Supplied pagination limit '-1' is not valid: a limit is 1 or more, or 'infinite'");
  EXPECT_EQ(error("?limit=2&limit=3"), "Supplied pagination limit is not valid: give one limit");
}

TEST(JsonPage, FiltersApplyAfterTheMarkerWhichMayNameAnyObject) {
  // id-c and id-e do not pass the filters; the marker id-c still says where to start.
  const std::vector<bool> matches{true, true, false, true, false};
  EXPECT_EQ(ids(paged("", matches)), "id-a id-b id-d");
  EXPECT_EQ(ids(paged("?limit=1&marker=id-c", matches)), "id-b");
}

TEST(JsonPage, FieldsKeepOnlyTheNamedOnes) {
  const json::object body = paged("?fields=id&fields=name,created_at&limit=1");
  const json::object& o = body.at("loadbalancers").as_array().at(0).as_object();
  EXPECT_EQ(o.size(), 3u);
  EXPECT_TRUE(o.contains("name"));
  EXPECT_FALSE(o.contains("provisioning_status"));
  // The next link still names the last object, by the id taken before the fields were.
  const json::object names_only = paged("?fields=name&limit=1");
  EXPECT_EQ(json::serialize(names_only.at("loadbalancers_links")),
            R"([{"rel":"next","href":"/v2/lbaas/loadbalancers?limit=1&marker=id-a"}])");
}

TEST(JsonPage, BadParametersAreOctaviasFourHundreds) {
  EXPECT_EQ(error("?limit=ten"), "Supplied pagination limit 'ten' is not valid.");
  EXPECT_EQ(error("?marker=nope"), "Supplied pagination marker 'nope' is not valid.");
  EXPECT_EQ(error("?sort=name:up"), "Supplied sort direction 'up' is not valid.");
  EXPECT_EQ(error("?sort=a:b:c"), "Supplied sort key '['a', 'b', 'c']' is not valid.");
  EXPECT_EQ(error("?sort=name:UP"), "Supplied sort direction 'up' is not valid.");
  EXPECT_EQ(error("?sort=name:"), "Supplied sort direction '' is not valid.");
  EXPECT_EQ(error("?sort_key=name,id&sort_dir=desc,"), "Supplied sort direction '' is not valid.");
  EXPECT_EQ(error("?sort_key=colour"), "Supplied sort key 'colour' is not valid.");
}

TEST(JsonPage, AnEmptyListHasNoLinksButChecksItsSortKeys) {
  auto body =
      page("members", {}, {}, *parse_target("/v2/lbaas/pools/p/members?limit=2&sort=weight"));
  ASSERT_TRUE(body.has_value());
  EXPECT_EQ(json::serialize(*body), R"({"members":[],"members_links":[]})");
  EXPECT_FALSE(page("members", {}, {}, *parse_target("/v2/lbaas/pools/p/members?sort=colour")));
}

TEST(JsonPage, SortKeysInTheModelsSpellingReadTheApisField) {
  std::vector<json::object> two{json::object{{"id", "b"}, {"admin_state_up", false}},
                                json::object{{"id", "a"}, {"admin_state_up", true}}};
  auto body = page("loadbalancers", two, {true, true},
                   *parse_target("/v2/lbaas/loadbalancers?sort=enabled:desc"));
  ASSERT_TRUE(body.has_value());
  EXPECT_EQ(body->at("loadbalancers").at(0).at("id"), "a");
}

TEST(JsonPage, PageParametersAreNoFilters) {
  for (const char* name :
       {"limit", "marker", "sort", "sort_key", "sort_dir", "fields", "page_reverse"}) {
    EXPECT_TRUE(is_page_parameter(name)) << name;
  }
  EXPECT_FALSE(is_page_parameter("name"));
}

}  // namespace
}  // namespace vigil::admin
