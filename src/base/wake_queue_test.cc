#include "base/wake_queue.h"

#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <random>
#include <vector>

namespace vigil {
namespace {

using namespace std::chrono_literals;

struct Item {
  int id = 0;
  WakeSlot slot;
  WakeSlot& wake_slot() { return slot; }
};

const TimePoint kT0 = TimePoint{} + 1h;

TEST(WakeQueueTest, WakesInTimeOrderAndOnlyWhenDue) {
  std::array<Item, 3> items{Item{.id = 0}, Item{.id = 1}, Item{.id = 2}};
  WakeQueue<Item> q;
  q.schedule(items[0], kT0 + 30ms);
  q.schedule(items[1], kT0 + 10ms);
  q.schedule(items[2], kT0 + 20ms);
  EXPECT_EQ(q.next(), kT0 + 10ms);
  EXPECT_EQ(q.pop_due(kT0 + 9ms), nullptr);
  EXPECT_EQ(q.pop_due(kT0 + 25ms), &items[1]);
  EXPECT_EQ(q.pop_due(kT0 + 25ms), &items[2]);
  EXPECT_EQ(q.pop_due(kT0 + 25ms), nullptr);
  EXPECT_FALSE(items[1].slot.queued());
  EXPECT_EQ(q.pop_due(kT0 + 30ms), &items[0]);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.next(), TimePoint{});
}

TEST(WakeQueueTest, OneEntryPerItemAtItsEarliestTime) {
  Item a;
  WakeQueue<Item> q;
  q.schedule(a, kT0 + 200ms);
  q.schedule(a, kT0 + 1s);  // later: the item queues it again when woken at 200 ms
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.queued_at(a), kT0 + 200ms);
  q.schedule(a, kT0 + 100ms);  // earlier: moves the entry
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.queued_at(a), kT0 + 100ms);
  q.schedule(a, TimePoint{});  // none
  EXPECT_EQ(q.queued_at(a), kT0 + 100ms);
}

TEST(WakeQueueTest, ARemovedItemIsNeverWoken) {
  std::array<Item, 4> items{};
  WakeQueue<Item> q;
  for (size_t i = 0; i < items.size(); ++i) q.schedule(items[i], kT0 + (i + 1) * 1ms);
  q.remove(items[1]);
  q.remove(items[1]);  // twice is once
  EXPECT_FALSE(items[1].slot.queued());
  std::vector<Item*> woken;
  while (Item* it = q.pop_due(kT0 + 1s)) woken.push_back(it);
  EXPECT_EQ(woken, (std::vector<Item*>{&items[0], &items[2], &items[3]}));
}

TEST(WakeQueueTest, ClearLeavesEveryItemUnqueued) {
  std::array<Item, 3> items{};
  WakeQueue<Item> q;
  for (Item& it : items) q.schedule(it, kT0);
  q.clear();
  EXPECT_TRUE(q.empty());
  for (Item& it : items) EXPECT_FALSE(it.slot.queued());
  q.schedule(items[0], kT0);  // usable again
  EXPECT_EQ(q.pop_due(kT0), &items[0]);
}

// Random schedules, removals and wake-ups against a plain per-item record of the earliest time:
// every wake-up takes an item whose time is the least of all queued, and each slot names its own
// entry (queued_at reads through it).
TEST(WakeQueueTest, AgreesWithAPlainRecordUnderRandomUse) {
  constexpr int kItems = 64;
  std::vector<Item> items(kItems);
  std::vector<std::optional<TimePoint>> expected(kItems);
  WakeQueue<Item> q;
  std::mt19937 rng(12345);
  TimePoint now = kT0;
  for (int step = 0; step < 20000; ++step) {
    const int i = static_cast<int>(rng() % kItems);
    switch (rng() % 4) {
      case 0:
      case 1: {
        const TimePoint at = now + std::chrono::milliseconds(rng() % 1000);
        q.schedule(items[i], at);
        if (!expected[i] || at < *expected[i]) expected[i] = at;
        break;
      }
      case 2:
        q.remove(items[i]);
        expected[i].reset();
        break;
      case 3: {
        now += std::chrono::milliseconds(rng() % 50);
        while (Item* it = q.pop_due(now)) {
          const auto k = static_cast<size_t>(it - items.data());
          ASSERT_TRUE(expected[k].has_value());
          ASSERT_LE(*expected[k], now);
          for (const auto& e : expected) {
            if (e) {
              ASSERT_LE(*expected[k], *e);
            }
          }
          expected[k].reset();
        }
        break;
      }
    }
    for (int k = 0; k < kItems; ++k) {
      ASSERT_EQ(q.queued_at(items[k]), expected[k].value_or(TimePoint{})) << "step " << step;
    }
  }
}

}  // namespace
}  // namespace vigil
