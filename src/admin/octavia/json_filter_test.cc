// Octavia 11's list filters (octavia/api/common/pagination.py, db/base_models.py apply_filter):
// which parameters each collection takes, how values compare, and the tag filters.
#include "admin/octavia/json_filter.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace vigil::admin {
namespace {

namespace json = boost::json;

struct Case {
  const char* description;
  const char* collection;
  const char* query;
  const char* object;
  bool expected;
};

std::expected<Filters, std::string> filters(std::string_view collection, std::string_view query) {
  return parse_filters(collection, *parse_target("/v2/lbaas/x?" + std::string(query)));
}

TEST(JsonFilter, ValuesCompareAsOctaviasDatabaseDoes) {
  const Case cases[] = {
      {.description = "a name",
       .collection = "pools",
       .query = "name=masters",
       .object = R"({"name": "masters"})",
       .expected = true},
      {.description = "names are case-sensitive",
       .collection = "pools",
       .query = "name=Masters",
       .object = R"({"name": "masters"})",
       .expected = false},
      {.description = "the empty name matches no unnamed object (NULL in Octavia)",
       .collection = "pools",
       .query = "name=",
       .object = R"({"name": ""})",
       .expected = false},
      {.description = "admin_state_up=0 is false (oslo's bool_from_string)",
       .collection = "members",
       .query = "admin_state_up=0",
       .object = R"({"admin_state_up": false})",
       .expected = true},
      {.description = "admin_state_up=yes is true",
       .collection = "members",
       .query = "admin_state_up=yes",
       .object = R"({"admin_state_up": true})",
       .expected = true},
      {.description = "enabled, the model's spelling, reads admin_state_up",
       .collection = "listeners",
       .query = "enabled=false",
       .object = R"({"admin_state_up": true})",
       .expected = false},
      {.description = "anything else is false",
       .collection = "members",
       .query = "admin_state_up=maybe",
       .object = R"({"admin_state_up": false})",
       .expected = true},
      {.description = "numbers by value",
       .collection = "listeners",
       .query = "protocol_port=06443",
       .object = R"({"protocol_port": 6443})",
       .expected = true},
      {.description = "a number that is no number",
       .collection = "listeners",
       .query = "protocol_port=https",
       .object = R"({"protocol_port": 443})",
       .expected = false},
      {.description = "address is ip_address in the model",
       .collection = "members",
       .query = "ip_address=192.0.2.1",
       .object = R"({"address": "192.0.2.1"})",
       .expected = true},
      {.description = "a pool without a monitor has no healthmonitor_id",
       .collection = "pools",
       .query = "healthmonitor_id=h1",
       .object = R"({"name": "p"})",
       .expected = false},
      {.description = "a pool's monitor",
       .collection = "pools",
       .query = "healthmonitor_id=h1",
       .object = R"({"healthmonitor_id": "h1"})",
       .expected = true},
      {.description = "null matches nothing, not even 'None'",
       .collection = "listeners",
       .query = "default_pool_id=None",
       .object = R"({"default_pool_id": null})",
       .expected = false},
      {.description = "a listener's load balancer, by relation",
       .collection = "listeners",
       .query = "loadbalancer_id=lb1",
       .object = R"({"loadbalancers": [{"id": "lb0"}, {"id": "lb1"}]})",
       .expected = true},
      {.description = "a monitor's pool, by relation",
       .collection = "healthmonitors",
       .query = "pool_id=p2",
       .object = R"({"pools": [{"id": "p1"}]})",
       .expected = false},
      {.description = "paging parameters are no filters",
       .collection = "pools",
       .query = "limit=1&sort=name&fields=id&marker=x&page_reverse=True",
       .object = R"({})",
       .expected = true},
  };
  for (const Case& c : cases) {
    auto f = filters(c.collection, c.query);
    ASSERT_TRUE(f.has_value()) << c.description;
    EXPECT_EQ(f->matches(json::parse(c.object).as_object()), c.expected) << c.description;
  }
}

TEST(JsonFilter, TagsAllAnyNotAllAndNone) {
  const json::object ab = json::parse(R"({"tags": ["a", "b"]})").as_object();
  const json::object a = json::parse(R"({"tags": ["a"]})").as_object();
  const json::object none = json::parse(R"({"tags": []})").as_object();
  const auto match = [](std::string_view query, const json::object& o) {
    auto f = filters("loadbalancers", query);
    EXPECT_TRUE(f.has_value()) << query;
    return f && f->matches(o);
  };
  EXPECT_TRUE(match("tags=a,b", ab));
  EXPECT_FALSE(match("tags=a,b", a));
  EXPECT_FALSE(match("tags=a&tags=b", a));  // repeated, as gophercloud sends them
  EXPECT_TRUE(match("tags-any=b,c", ab));
  EXPECT_FALSE(match("tags-any=b,c", a));
  EXPECT_FALSE(match("not-tags=a,b", ab));
  EXPECT_TRUE(match("not-tags=a,b", a));
  EXPECT_FALSE(match("not-tags-any=b,c", ab));
  EXPECT_TRUE(match("not-tags-any=b,c", a));
  EXPECT_TRUE(match("not-tags-any=a", none));
  EXPECT_FALSE(match("tags=a", none));
  EXPECT_FALSE(match("tags=a&name=", a));  // every other filter still applies
}

TEST(JsonFilter, UnknownAndRepeatedFiltersAreOctaviasFourHundred) {
  for (const auto& [collection, query] : {
           std::pair{"pools", "colour=red"},
           {"pools", "listener_id=l1"},         // no column of a pool
           {"members", "loadbalancer_id=lb1"},  // nor of a member
           {"loadbalancers", "tenant_id=p"},    // the response's alias, no column
           {"listeners", "allowed_cidrs=10.0.0.0/8"},
           {"pools", "name=a&name=b"},
       }) {
    auto f = filters(collection, query);
    ASSERT_FALSE(f.has_value()) << collection << "?" << query;
    EXPECT_EQ(f.error(), kInvalidFilter);
  }
}

TEST(JsonFilter, EveryCollectionKnowsItsOwnColumns) {
  EXPECT_TRUE(filters("loadbalancers", "vip_address=127.0.0.1&provider=vigil&flavor_id=f"));
  EXPECT_TRUE(filters("listeners", "protocol=TCP&default_pool_id=p&timeout_client_data=5"));
  EXPECT_TRUE(filters("pools", "lb_algorithm=ROUND_ROBIN&loadbalancer_id=x&tls_enabled=false"));
  EXPECT_TRUE(filters("members", "weight=1&backup=false&monitor_port=1&pool_id=p"));
  EXPECT_TRUE(filters("healthmonitors", "type=TCP&delay=5&max_retries_down=3&pool_id=p"));
  EXPECT_TRUE(filters("l7policies", "listener_id=l&action=REJECT&position=1"));
  EXPECT_TRUE(filters("amphorae", "loadbalancer_id=x&role=MASTER&status=READY"));
  EXPECT_TRUE(filters("flavors", "name=small&enabled=true"));
  EXPECT_TRUE(filters("availabilityzones", "name=az1"));
  EXPECT_FALSE(filters("flavors", "provisioning_status=ACTIVE"));
  EXPECT_FALSE(filters("flavorprofiles", "availability_zone_data=x"));
}

}  // namespace
}  // namespace vigil::admin
