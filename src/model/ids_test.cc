#include "model/ids.h"

#include <gtest/gtest.h>

#include <regex>

namespace vigil::model {
namespace {

TEST(Ids, AreStableVersion5Uuids) {
  const std::string id = member_id("lb", "masters", "master-01");
  EXPECT_EQ(id, member_id("lb", "masters", "master-01"));
  EXPECT_TRUE(std::regex_match(
      id, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")))
      << id;
}

TEST(Ids, DifferByKindAndName) {
  EXPECT_NE(pool_id("lb", "x"), listener_id("lb", "x"));
  EXPECT_NE(member_id("lb", "p", "a"), member_id("lb", "p", "b"));
  EXPECT_NE(member_id("lb", "p", "a"), member_id("lb2", "p", "a"));
  // Path parts are separated, so ("a/b", "c") and ("a", "b/c") could collide only if names
  // contained '/', which config validation forbids.
  EXPECT_NE(pool_id("lb", "ab"), pool_id("lba", "b"));
}

}  // namespace
}  // namespace vigil::model
