// WakeQueue: when each of many objects next wants to be woken, one entry per object at its
// earliest time, in a binary min-heap whose entries the objects index back into (a WakeSlot each
// holds). An object that ends leaves the queue at once, so no entry of a gone object waits for
// its time, and the heap holds the live objects only. A later deadline than the one queued costs
// nothing: the object is woken at the earlier one and then queues its next (see schedule()).
// Single-threaded; no allocation once the vector has grown.
//
// T provides `WakeSlot& wake_slot()`. The worker's sessions use it (proxy/worker_loop.h): a session
// learns of up to four deadlines in its first millisecond (hedge, connect, first byte, dead peer),
// and a queue with an entry per deadline held four for every short connection until they came due.
#pragma once

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "base/clock.h"

namespace vigil {

// Where an object's entry is in its WakeQueue; kNone when not queued.
struct WakeSlot {
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  uint32_t index = kNone;
  bool queued() const { return index != kNone; }
};

template <class T>
class WakeQueue {
 public:
  // Queues `item` at `at`, or moves its entry earlier to `at`. A time later than the one queued is
  // left for the item to queue again when it is woken at the earlier one; a zero time is none.
  void schedule(T& item, TimePoint at) {
    if (at == TimePoint{}) return;
    WakeSlot& slot = item.wake_slot();
    if (!slot.queued()) {
      heap_.push_back({at, &item});
      slot.index = static_cast<uint32_t>(heap_.size() - 1);
      sift_up(slot.index);
    } else if (at < heap_[slot.index].at) {
      heap_[slot.index].at = at;
      sift_up(slot.index);
    }
  }

  // Takes `item` out of the queue, if it is in it.
  void remove(T& item) {
    WakeSlot& slot = item.wake_slot();
    if (!slot.queued()) return;
    const uint32_t i = std::exchange(slot.index, WakeSlot::kNone);
    const Entry last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;  // it was the last one
    place(i, last);
    if (i > 0 && last.at < heap_[parent(i)].at) {
      sift_up(i);
    } else {
      sift_down(i);
    }
  }

  // The earliest item due at `now` or before, taken out of the queue; null when none is.
  T* pop_due(TimePoint now) {
    if (heap_.empty() || heap_.front().at > now) return nullptr;
    T* item = heap_.front().item;
    remove(*item);
    return item;
  }

  // The earliest queued time; zero when the queue is empty.
  TimePoint next() const { return heap_.empty() ? TimePoint{} : heap_.front().at; }
  // When `item` is queued for; zero when it is not queued.
  TimePoint queued_at(T& item) const {
    const WakeSlot& slot = item.wake_slot();
    return slot.queued() ? heap_[slot.index].at : TimePoint{};
  }
  size_t size() const { return heap_.size(); }
  bool empty() const { return heap_.empty(); }

  // Forgets every entry; the items' slots say they are not queued.
  void clear() {
    for (Entry& e : heap_) e.item->wake_slot().index = WakeSlot::kNone;
    heap_.clear();
  }

 private:
  struct Entry {
    TimePoint at;
    T* item;
  };

  static uint32_t parent(uint32_t i) { return (i - 1) / 2; }

  void place(uint32_t i, const Entry& e) {
    heap_[i] = e;
    e.item->wake_slot().index = i;
  }

  void sift_up(uint32_t i) {
    const Entry e = heap_[i];
    while (i > 0 && e.at < heap_[parent(i)].at) {
      place(i, heap_[parent(i)]);
      i = parent(i);
    }
    place(i, e);
  }

  void sift_down(uint32_t i) {
    const Entry e = heap_[i];
    const auto n = static_cast<uint32_t>(heap_.size());
    for (;;) {
      uint32_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && heap_[child + 1].at < heap_[child].at) ++child;
      if (!(heap_[child].at < e.at)) break;
      place(i, heap_[child]);
      i = child;
    }
    place(i, e);
  }

  std::vector<Entry> heap_;
};

}  // namespace vigil
