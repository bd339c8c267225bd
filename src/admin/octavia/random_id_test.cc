// Ids of objects created through the API: UUIDv4 in Octavia's form, and the form Octavia checks.
#include "admin/octavia/random_id.h"

#include <gtest/gtest.h>

#include <set>

namespace vigil::admin {
namespace {

TEST(RandomId, Version4InTheLowerCaseDashedForm) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = random_uuid();
    ASSERT_TRUE(is_uuid(id)) << id;
    EXPECT_EQ(id[14], '4') << id;                                          // version
    EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos) << id;  // RFC 4122 variant
    EXPECT_EQ(id, [&] {
      std::string lower = id;
      for (char& c : lower) c = static_cast<char>(std::tolower(c));
      return lower;
    }());
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(RandomId, IsUuidTakesOnlyTheDashedForm) {
  EXPECT_TRUE(is_uuid("7C1C0F4E-0000-5000-8000-000000000000"));
  for (const char* bad :
       {"", "7c1c0f4e00005000800000000000000000", "{7c1c0f4e-0000-5000-8000-000000000000}",
        "7c1c0f4e-0000-5000-8000-00000000000g", "7c1c0f4e-0000-5000-8000-0000000000000"}) {
    EXPECT_FALSE(is_uuid(bad)) << bad;
  }
}

}  // namespace
}  // namespace vigil::admin
