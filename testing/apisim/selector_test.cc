#include "testing/apisim/selector.h"

#include <gtest/gtest.h>

namespace vigil::apisim {
namespace {

TEST(ApisimSelector, MatchesTheEqualityForms) {
  const std::map<std::string, std::string, std::less<>> labels = {
      {"kubernetes.io/service-name", "kubernetes"}};
  struct Case {
    const char* text;
    bool matches;
  };
  const Case cases[] = {
      {.text = "", .matches = true},
      {.text = "kubernetes.io/service-name=kubernetes", .matches = true},
      {.text = "kubernetes.io/service-name==kubernetes", .matches = true},
      {.text = "kubernetes.io/service-name = kubernetes", .matches = true},
      {.text = "kubernetes.io/service-name=other", .matches = false},
      {.text = "kubernetes.io/service-name!=other", .matches = true},
      {.text = "kubernetes.io/service-name", .matches = true},
      {.text = "!kubernetes.io/service-name", .matches = false},
      {.text = "kubernetes.io/service-name=kubernetes,app=x", .matches = false},
      {.text = "app!=x", .matches = true},
  };
  for (const auto& c : cases) {
    auto selector = Selector::parse(c.text);
    ASSERT_TRUE(selector) << c.text << ": " << selector.error().message;
    EXPECT_EQ(selector->matches(labels), c.matches) << c.text;
  }
}

TEST(ApisimSelector, RefusesSetBasedAndGarbage) {
  for (const char* bad : {"app in (a,b)", "app notin (x)", "=x", "a=b=c", "!"}) {
    EXPECT_FALSE(Selector::parse(bad)) << bad;
  }
}

TEST(ApisimSelector, RequireNarrows) {
  auto selector = Selector::parse("");
  ASSERT_TRUE(selector);
  selector->require("metadata.namespace", "default");
  EXPECT_TRUE(selector->matches({{"metadata.namespace", "default"}}));
  EXPECT_FALSE(selector->matches({{"metadata.namespace", "kube-system"}}));
}

}  // namespace
}  // namespace vigil::apisim
