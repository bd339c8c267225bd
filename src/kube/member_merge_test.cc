// The members a pool runs once the API lists them: the file's own where they match, new ones
// named by address, backups kept.
#include "kube/member_merge.h"

#include <gtest/gtest.h>

namespace vigil::kube {
namespace {

model::Pool file_pool() {
  model::Pool p{.name = "masters"};
  p.members = {
      {.name = "master-01", .address = "10.0.0.11", .port = 6443, .weight = 3},
      {.name = "master-02", .address = "10.0.0.12", .port = 6443},
      {.name = "vip", .address = "192.0.2.10", .port = 6443, .backup = true},
  };
  p.members_from = model::KubernetesMembers{.where = {.file = "vigil.yaml", .line = 9}};
  return p;
}

std::vector<std::string> names(const model::Pool& p) {
  std::vector<std::string> out;
  for (const auto& m : p.members) out.push_back(m.name);
  return out;
}

TEST(WithApiMembers, KeepsTheFilesMembersWhereTheApiListsThem) {
  const model::Pool p = with_api_members(
      file_pool(),
      {{"10.0.0.11", 6443, true}, {"10.0.0.13", 6443, true}, {"fd00::14", 6443, true}});
  EXPECT_EQ(names(p),
            (std::vector<std::string>{"master-01", "10.0.0.13:6443", "[fd00::14]:6443", "vip"}));
  EXPECT_EQ(p.members[0].weight, 3);  // the file's settings stay
  EXPECT_EQ(p.members[1].address, "10.0.0.13");
  EXPECT_EQ(p.members[1].where.line, 9);  // a new member is written where members_from is
  EXPECT_TRUE(p.members[3].backup);
}

TEST(WithApiMembers, MatchesAddressesHoweverWritten) {
  model::Pool f = file_pool();
  f.members[1].address = "fd00:0::12";
  const model::Pool p = with_api_members(f, {{"fd00::12", 6443, true}});
  EXPECT_EQ(names(p), (std::vector<std::string>{"master-02", "vip"}));
}

TEST(WithApiMembers, AnotherPortIsAnotherMember) {
  const model::Pool p = with_api_members(file_pool(), {{"10.0.0.11", 443, true}});
  EXPECT_EQ(names(p), (std::vector<std::string>{"10.0.0.11:443", "vip"}));
}

TEST(WithApiMembers, ABackupIsNeverTakenForAnApiMember) {
  const model::Pool p = with_api_members(file_pool(), {{"192.0.2.10", 6443, true}});
  EXPECT_EQ(names(p), (std::vector<std::string>{"192.0.2.10:6443", "vip"}));
}

TEST(WithApiMembers, AStaleListHasTheBootstrapMembersBack) {
  // master-02 is no longer listed; while the list cannot be confirmed it comes back.
  const model::Pool p = with_api_members(
      file_pool(), {{"10.0.0.11", 6443, true}, {"10.0.0.13", 6443, true}}, /*stale=*/true);
  EXPECT_EQ(names(p),
            (std::vector<std::string>{"master-01", "10.0.0.13:6443", "master-02", "vip"}));
  const model::Pool fresh =
      with_api_members(file_pool(), {{"10.0.0.11", 6443, true}, {"10.0.0.13", 6443, true}});
  EXPECT_EQ(names(fresh), (std::vector<std::string>{"master-01", "10.0.0.13:6443", "vip"}));
}

}  // namespace
}  // namespace vigil::kube
