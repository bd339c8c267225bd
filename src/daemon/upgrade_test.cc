// The sockets an upgrade hands over, as the environment variable carries them.
#include "daemon/upgrade.h"

#include <gtest/gtest.h>

namespace vigil::daemon::upgrade {
namespace {

TEST(Upgrade, PassedFdsRoundTrip) {
  const std::vector<PassedFd> fds{{.listener_id = "8f1c-api", .worker = 0, .fd = 7},
                                  {.listener_id = "8f1c-api", .worker = 1, .fd = 8},
                                  {.listener_id = "admin", .worker = 0, .fd = 12}};
  EXPECT_EQ(encode(fds), "8f1c-api:0:7,8f1c-api:1:8,admin:0:12");
  EXPECT_EQ(decode(encode(fds)), fds);
}

TEST(Upgrade, MalformedEntriesAreSkipped) {
  const std::vector<PassedFd> want{{.listener_id = "a:b", .worker = 2, .fd = 9}};
  // Ids are read from the right, so one with a colon survives; stdio and junk do not.
  EXPECT_EQ(decode("a:b:2:9,x:0:1,:0:5,y:z:5,y:1:,,noise"), want);
  EXPECT_TRUE(decode("").empty());
}

}  // namespace
}  // namespace vigil::daemon::upgrade
