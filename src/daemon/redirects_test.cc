// Redirects with a fake table: it opens the table only when a listener has redirect_from, writes
// it only when the rules change, reports a failure in the listener's view and tries again after
// kRetryAfter on the manual clock.
#include "daemon/redirects.h"

#include <gtest/gtest.h>

#include "testing/manual_clock.h"

namespace vigil::daemon {
namespace {

struct FakeTable {
  int opened = 0;
  int writes = 0;
  std::vector<redirect::Rule> rules;
  std::optional<std::string> fail;  // the next writes fail with this
};

class Table final : public redirect::RuleTable {
 public:
  explicit Table(FakeTable& fake) : fake_(fake) {}
  Result<void> set(std::span<const redirect::Rule> rules) override {
    ++fake_.writes;
    if (fake_.fail) return vigil::fail(*fake_.fail);
    fake_.rules.assign(rules.begin(), rules.end());
    return {};
  }

 private:
  FakeTable& fake_;
};

const model::RedirectFrom kVip{.address = "192.0.2.10", .port = 6443};

redirect::ListenerFacts facts(size_t usable) {
  return {.listener_id = "l1",
          .listener = "api",
          .from = kVip,
          .serving = true,
          .port = 9445,
          .pool = "masters",
          .usable = usable};
}

struct Fixture {
  testing::ManualClock clock;
  FakeTable fake;
  Redirects redirects{clock, [this]() -> Result<std::unique_ptr<redirect::RuleTable>> {
                        ++fake.opened;
                        return std::make_unique<Table>(fake);
                      }};
};

TEST(Redirects, NoListenerWithTheKeyOpensNothing) {
  Fixture f;
  f.redirects.update({});
  f.redirects.update({});
  EXPECT_EQ(f.fake.opened, 0);
  EXPECT_FALSE(f.redirects.view("l1"));
}

TEST(Redirects, WritesOnlyWhenTheRulesChange) {
  Fixture f;
  f.redirects.update({facts(3)});
  EXPECT_EQ(f.fake.opened, 1);
  EXPECT_EQ(f.fake.writes, 1);
  EXPECT_EQ(f.fake.rules, (std::vector<redirect::Rule>{{.from = kVip, .to_port = 9445}}));
  EXPECT_EQ(f.redirects.view("l1"),
            (model::RedirectView{.from = "192.0.2.10:6443",
                                 .active = true,
                                 .reason = "3 usable members in pool masters"}));
  f.redirects.update({facts(3)});
  f.redirects.update({facts(2)});  // another reason, the same rule
  EXPECT_EQ(f.fake.writes, 1);
  EXPECT_EQ(f.redirects.view("l1")->reason, "2 usable members in pool masters");

  f.redirects.update({facts(0)});
  EXPECT_EQ(f.fake.writes, 2);
  EXPECT_TRUE(f.fake.rules.empty());
  EXPECT_EQ(f.redirects.view("l1"),
            (model::RedirectView{.from = "192.0.2.10:6443",
                                 .active = false,
                                 .reason = "no usable member in pool masters"}));
  f.redirects.update({facts(1)});
  EXPECT_EQ(f.fake.writes, 3);
  EXPECT_TRUE(f.redirects.view("l1")->active);
  EXPECT_EQ(f.fake.opened, 1);  // one table, one socket, for good
}

TEST(Redirects, AFailureShowsAndIsTriedAgainLater) {
  Fixture f;
  f.fake.fail = "Could not process rule: Operation not permitted";
  f.redirects.update({facts(3)});
  EXPECT_EQ(f.fake.writes, 1);
  auto v = f.redirects.view("l1");
  EXPECT_FALSE(v->active);
  EXPECT_EQ(v->reason,
            "wanted (3 usable members in pool masters), but nftables refused: Could not process "
            "rule: Operation not permitted");
  EXPECT_EQ(f.redirects.error(), *f.fake.fail);

  f.clock.advance(Redirects::kRetryAfter / 2);
  f.redirects.update({facts(3)});
  EXPECT_EQ(f.fake.writes, 1);  // not yet

  f.fake.fail.reset();
  f.clock.advance(Redirects::kRetryAfter);
  f.redirects.update({facts(3)});
  EXPECT_EQ(f.fake.writes, 2);
  EXPECT_TRUE(f.redirects.view("l1")->active);
  EXPECT_EQ(f.redirects.error(), "");
  f.redirects.update({facts(3)});
  EXPECT_EQ(f.fake.writes, 2);
}

TEST(Redirects, ATableThatCannotOpenIsTriedAgain) {
  testing::ManualClock clock;
  int attempts = 0;
  Redirects redirects(clock, [&]() -> Result<std::unique_ptr<redirect::RuleTable>> {
    ++attempts;
    return vigil::fail("cannot open a netfilter netlink socket: Address family not supported");
  });
  redirects.update({facts(3)});
  EXPECT_EQ(attempts, 1);
  EXPECT_FALSE(redirects.view("l1")->active);
  clock.advance(Redirects::kRetryAfter);
  redirects.update({facts(3)});
  EXPECT_EQ(attempts, 2);
  // Then less and less often: 10 s after the second failure, not 5.
  clock.advance(Redirects::kRetryAfter);
  redirects.update({facts(3)});
  EXPECT_EQ(attempts, 2);
  clock.advance(Redirects::kRetryAfter);
  redirects.update({facts(3)});
  EXPECT_EQ(attempts, 3);
  for (int i = 0; i < 20; ++i) {
    clock.advance(Redirects::kRetryAtMost);
    redirects.update({facts(3)});
  }
  EXPECT_EQ(attempts, 23);  // never waits past kRetryAtMost
}

}  // namespace
}  // namespace vigil::daemon
