// The reads of every load balancer (/v1/status, /metrics, a whole Octavia list) take the daemon's
// views a slice per turn of the control thread, so that a write waits for a slice rather than for
// all of them. What comes out is each load balancer that ran from the first slice to the last
// exactly once, whatever was made, removed or reloaded between two slices.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json/parse.hpp>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "admin/fake_daemon_test.h"
#include "admin/routes.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

// Runs its load balancers as ControlPlane does: in the order they were made, each with a place
// (`order`) that only grows, which a reload gives anew to all of them.
class SlicingDaemon : public testing::FakeDaemon {
 public:
  uint64_t views_after(const ViewScope&, uint64_t cursor, size_t count,
                       std::vector<model::LoadBalancerView>& out) const override {
    ++slices;
    auto it = running.upper_bound(cursor);
    size_t n = 0;
    for (; it != running.end() && n < count; ++it, ++n) out.push_back(lb(it->second));
    return it == running.end() ? 0 : std::prev(it)->first;
  }

  void make(const std::string& id) { running[++last] = id; }
  void remove(const std::string& id) {
    std::erase_if(running, [&](const auto& e) { return e.second == id; });
  }
  void renumber() {
    std::map<uint64_t, std::string> again;
    for (const auto& [order, id] : running) again[++last] = id;
    running = std::move(again);
  }

  static model::LoadBalancerView lb(const std::string& id) {
    model::LoadBalancerView v = testing::sample_view();
    v.id = id;
    v.name = id;
    return v;
  }

  std::map<uint64_t, std::string> running;  // by order
  uint64_t last = 0;
  mutable int slices = 0;
};

class SlicedViewsTest : public ::testing::Test {
 protected:
  // Asks for `target`; the answer comes once every turn the route deferred has run. `between`
  // runs before each of those turns (a write that came meanwhile).
  Response get(std::string_view target, const std::function<void(int)>& between) {
    const Request request{.method = "GET", .target = target, .x_auth_token = "T"};
    Response r = route(request, RouteContext{.token = "T",
                                             .daemon = daemon_,
                                             .now = testing::kNow,
                                             .render = &render_,
                                             .defer = &defer_});
    EXPECT_TRUE(r.later) << target;
    std::optional<Response> answer;
    r.later([&](Response a) { answer = std::move(a); });
    for (int turn = 0; !turns_.empty() && turn < 1000; ++turn) {
      between(turn);
      auto next = std::move(turns_.front());
      turns_.pop_front();
      next();
    }
    EXPECT_TRUE(turns_.empty()) << "turns without end";
    EXPECT_TRUE(answer) << target;
    return answer ? std::move(*answer) : Response{};
  }

  // The ids of the load balancers /v1/status shows, in its order.
  static std::vector<std::string> shown(const Response& r) {
    std::vector<std::string> out;
    const json::value doc = json::parse(r.body);
    for (const json::value& lb : doc.as_object().at("loadbalancers").as_array()) {
      out.emplace_back(lb.as_object().at("loadbalancer").as_object().at("id").as_string());
    }
    return out;
  }

  SlicingDaemon daemon_;
  std::deque<std::function<void()>> turns_;
  RenderFn render_ = [](std::function<Response()> make, std::function<void(Response)> send) {
    send(make());
  };
  DeferFn defer_ = [this](std::function<void()> f) { turns_.push_back(std::move(f)); };
};

TEST_F(SlicedViewsTest, EveryLoadBalancerThatRanThroughoutComesOnceInTheOrderTheyRun) {
  for (int i = 0; i < 600; ++i) daemon_.make("lb-" + std::to_string(i));
  const Response r = get("/v1/status", [](int) {});
  ASSERT_EQ(r.status, 200) << r.body;
  std::vector<std::string> want;
  for (int i = 0; i < 600; ++i) want.push_back("lb-" + std::to_string(i));
  EXPECT_EQ(shown(r), want);
  EXPECT_EQ(daemon_.slices, 6) << "100 a turn";
}

TEST_F(SlicedViewsTest, WritesAndAReloadBetweenTwoSlicesNeitherLoseNorRepeatOne) {
  for (int i = 0; i < 600; ++i) daemon_.make("lb-" + std::to_string(i));
  const Response r = get("/v1/status", [&](int turn) {
    if (turn == 0) {
      daemon_.remove("lb-10");   // taken already
      daemon_.remove("lb-300");  // not yet
      daemon_.make("made-meanwhile");
    }
    if (turn == 1)
      daemon_.renumber();  // a reload: every place anew: the first 200 would come again
  });
  ASSERT_EQ(r.status, 200) << r.body;
  const std::vector<std::string> ids = shown(r);
  std::map<std::string, int> times;
  for (const std::string& id : ids) ++times[id];
  for (int i = 0; i < 600; ++i) {
    const std::string id = "lb-" + std::to_string(i);
    if (i == 300) {
      EXPECT_EQ(times[id], 0) << "removed before its slice";
    } else {
      EXPECT_EQ(times[id], 1) << id;
    }
  }
  EXPECT_LE(times["made-meanwhile"], 1);
}

// /metrics and a whole Octavia list are taken so too.
TEST_F(SlicedViewsTest, MetricsAndWholeListsAreTakenASliceAtATime) {
  for (int i = 0; i < 600; ++i) daemon_.make("lb-" + std::to_string(i));
  for (const char* target : {"/metrics", "/v2/lbaas/loadbalancers"}) {
    daemon_.slices = 0;
    const Response r = get(target, [](int) {});
    EXPECT_EQ(r.status, 200) << target;
    EXPECT_EQ(daemon_.slices, 6) << target;
  }
}

}  // namespace
}  // namespace vigil::admin
