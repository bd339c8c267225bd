#include "net/resolver.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>

namespace vigil::net {
namespace {

using namespace std::chrono_literals;

// The control thread's loop, as a queue the test drains.
class Inbox {
 public:
  void post(std::function<void()> f) {
    std::lock_guard lock(mu_);
    items_.push_back(std::move(f));
    cv_.notify_all();
  }
  // Runs the next answer; false when none came within 5 s.
  bool run_one() {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, 5s, [&] { return !items_.empty(); })) return false;
    auto f = std::move(items_.front());
    items_.pop_front();
    lock.unlock();
    f();
    return true;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> items_;
};

TEST(Resolver, AnswersComeBackThroughDeliver) {
  Inbox inbox;
  Resolver r([&](std::function<void()> f) { inbox.post(std::move(f)); });
  std::optional<Resolver::Addresses> got;
  ASSERT_TRUE(r.resolve("127.0.0.1", 80, [&](Resolver::Addresses a) { got = std::move(a); }));
  ASSERT_TRUE(inbox.run_one());
  ASSERT_TRUE(got && *got);
  EXPECT_EQ((*got)->front().to_string(), "127.0.0.1:80");
}

TEST(Resolver, ABlockedLookupNeverBlocksTheCaller) {
  Inbox inbox;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> first_taken;
  std::atomic<int> lookups = 0;
  Resolver r([&](std::function<void()> f) { inbox.post(std::move(f)); },
             [&, released](const std::string& host, uint16_t) -> Resolver::Addresses {
               if (lookups++ == 0) first_taken.set_value();
               released.wait();  // a DNS server that does not answer
               return fail("cannot resolve \"" + host + "\": timed out");
             },
             /*max_queued=*/2);
  std::vector<std::string> answers;
  auto record = [&](Resolver::Addresses a) { answers.push_back(a ? "ok" : a.error().message); };
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(r.resolve("a.example", 1, record));  // taken by the thread, which blocks
  ASSERT_EQ(first_taken.get_future().wait_for(5s), std::future_status::ready);
  // The queue is bounded: two more wait, the others are refused at once.
  size_t accepted = 1;
  for (int i = 0; i < 4; ++i) accepted += r.resolve("b.example", 1, record) ? 1 : 0;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 500ms);
  EXPECT_EQ(accepted, 3u);
  release.set_value();
  for (size_t i = 0; i < accepted; ++i) ASSERT_TRUE(inbox.run_one());
  EXPECT_EQ(answers.size(), accepted);
  EXPECT_EQ(answers.front(), "cannot resolve \"a.example\": timed out");
}

TEST(Resolver, DestroyedWhileALookupBlocksItReturnsAtOnce) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> delivered = false;
  {
    Resolver r([&](std::function<void()>) { delivered = true; },
               [released](const std::string&, uint16_t) -> Resolver::Addresses {
                 released.wait();
                 return fail("late");
               });
    ASSERT_TRUE(r.resolve("a.example", 1, [](Resolver::Addresses) {}));
  }
  release.set_value();  // the thread returns now and drops its answer
  EXPECT_FALSE(delivered.load());
}

}  // namespace
}  // namespace vigil::net
