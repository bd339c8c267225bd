// Octavia's quota bodies and defaults, and quotas kept through the state file and its journal.
#include "admin/octavia/quotas.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json/serialize.hpp>
#include <filesystem>

#include "admin/octavia/object_store.h"
#include "admin/octavia/store_json.h"

namespace vigil::admin {
namespace {

namespace fs = std::filesystem;

TEST(Quotas, NoneSetIsOctaviasDefaultEverywhere) {
  EXPECT_EQ(boost::json::serialize(quota_json({})),
            R"({"load_balancer":-1,"listener":-1,"member":-1,"pool":-1,"health_monitor":-1,)"
            R"("l7policy":-1,"l7rule":-1})");
}

TEST(Quotas, APutChangesOnlyTheFieldsItGives) {
  const ApiQuota was{.load_balancer = 3, .member = 10};
  auto q = updated_quota(R"({"quota": {"listener": 5, "member": null, "pool": -1}})", was);
  ASSERT_TRUE(q) << q.error().message;
  EXPECT_EQ(*q, (ApiQuota{.load_balancer = 3, .listener = 5, .pool = -1}));
  // The deprecated names set the same fields; the current one wins when both are given.
  q = updated_quota(R"({"quota": {"loadbalancer": 7, "healthmonitor": 2, "health_monitor": 4}})",
                    {});
  ASSERT_TRUE(q) << q.error().message;
  EXPECT_EQ(*q, (ApiQuota{.load_balancer = 7, .health_monitor = 4}));
}

ApiLoadBalancer lb(std::string project, int listeners, int members) {
  ApiLoadBalancer out;
  out.id = "lb-" + project + std::to_string(listeners) + std::to_string(members);
  out.project_id = std::move(project);
  out.listeners.resize(static_cast<size_t>(listeners));
  ApiPool pool;
  pool.members.resize(static_cast<size_t>(members));
  out.pools.push_back(std::move(pool));
  return out;
}

TEST(Quotas, AWriteBeyondAProjectsQuotaIsOctaviasForbidden) {
  ApiState before;
  before.quotas["p1"] = ApiQuota{.load_balancer = 1, .listener = 2, .member = -1};
  before.loadbalancers.push_back(lb("p1", 1, 1));
  before.loadbalancers.push_back(lb("other", 5, 5));  // another project's count for it alone
  ApiState after = before;
  EXPECT_EQ(quota_met(before, after), std::nullopt);

  after.loadbalancers.push_back(lb("p1", 0, 0));
  auto met = quota_met(before, after);
  ASSERT_TRUE(met);
  EXPECT_EQ(met->status, 403);
  EXPECT_EQ(met->message, "Quota has been met for resources: Load Balancer");

  after = before;
  after.loadbalancers.edit(0).listeners.resize(3);
  met = quota_met(before, after);
  ASSERT_TRUE(met);
  EXPECT_EQ(met->message, "Quota has been met for resources: Listener");

  after = before;  // -1: unlimited
  after.loadbalancers.edit(0).pools[0].members.resize(100);
  EXPECT_EQ(quota_met(before, after), std::nullopt);

  // Lowered below what the project has: writes that add nothing still go through.
  before.quotas["p1"].listener = 0;
  after = before;
  after.loadbalancers.edit(0).name = "renamed";
  EXPECT_EQ(quota_met(before, after), std::nullopt);
}

TEST(Quotas, BadBodiesAreOctaviasFourHundreds) {
  struct Case {
    const char* body;
    const char* message;
  };
  const Case cases[] = {
      {R"({"quota": {"pool": -2}})",
       "Invalid input for field/attribute pool. Value: '-2'. Value should be greater or equal to "
       "-1"},
      {R"({"quota": {"pool": 2000000001}})",
       "Invalid input for field/attribute pool. Value: '2000000001'. Value should be lower or "
       "equal to 2000000000"},
      {R"({"quota": {"colour": 1}})", "Unknown attribute for argument quotas.quota: colour"},
      {"not json", "Request is not in valid JSON format"},
  };
  for (const Case& c : cases) {
    auto q = updated_quota(c.body, {});
    ASSERT_FALSE(q) << c.body;
    EXPECT_EQ(q.error().status, 400) << c.body;
    EXPECT_EQ(q.error().message, c.message) << c.body;
  }
}

TEST(Quotas, KeptThroughTheStateFileAndItsJournal) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("vigil-quotas-{}", ::getpid());
  fs::create_directories(dir);
  const std::string path = (dir / "state.json").string();
  {
    auto store = ObjectStore::load(path);
    ASSERT_TRUE(store) << store.error().message;
    ASSERT_TRUE(store->set_quota("p1", ApiQuota{.load_balancer = 2}));
    ASSERT_TRUE(store->set_quota("p2", ApiQuota{.member = 0}));
    ASSERT_TRUE(store->set_quota("p2", std::nullopt));  // DELETE: back to the defaults
    ASSERT_TRUE(store->commit(store->state())) << "an Octavia write leaves them alone";
    EXPECT_EQ(store->state().quotas.size(), 1u);
  }
  auto again = ObjectStore::load(path);  // the journal replayed
  ASSERT_TRUE(again) << again.error().message;
  ASSERT_EQ(again->state().quotas.size(), 1u);
  EXPECT_EQ(again->state().quotas.at("p1"), ApiQuota{.load_balancer = 2});
  ASSERT_TRUE(again->fold());  // the whole state file
  auto folded = state_from_json(state_to_json(again->state()));
  ASSERT_TRUE(folded) << folded.error().message;
  EXPECT_EQ(folded->quotas, again->state().quotas);
  auto reloaded = ObjectStore::load(path);
  ASSERT_TRUE(reloaded) << reloaded.error().message;
  EXPECT_EQ(reloaded->state().quotas, again->state().quotas);
  fs::remove_all(dir);
}

TEST(Quotas, ABadQuotaInTheStateFileNamesTheProject) {
  auto loaded = state_from_json(R"({"version": 1, "loadbalancers": [],
                                    "quotas": {"p1": {"pool": -5}}})");
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().message.find("quotas.p1"), std::string::npos) << loaded.error().message;
}

}  // namespace
}  // namespace vigil::admin
