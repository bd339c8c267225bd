#include "daemon/heap_trim.h"

#include <gtest/gtest.h>

namespace vigil::daemon {
namespace {

using namespace std::chrono_literals;

TEST(HeapTrim, WaitsForAQuietApiUnlessItIsNeverQuiet) {
  constexpr size_t kHeld = 100u << 20;  // after a status answer of 30,000 members
  EXPECT_TRUE(heap_trim_due(kHeld, /*api_quiet=*/true, 5s));
  // Reads and writes going on: the walk would hold them up, and the next read reuses the memory.
  EXPECT_FALSE(heap_trim_due(kHeld, false, 5s));
  EXPECT_FALSE(heap_trim_due(kHeld, false, kHeapTrimAtLeastEvery - 1ms));
  // ...but an API busy for good still gives a burst back, once a minute.
  EXPECT_TRUE(heap_trim_due(kHeld, false, kHeapTrimAtLeastEvery));
}

TEST(HeapTrim, LittleHeldIsNotWorthAWalk) {
  EXPECT_FALSE(heap_trim_due(kHeapTrimAbove, true, kHeapTrimAtLeastEvery));
  EXPECT_TRUE(heap_trim_due(kHeapTrimAbove + 1, true, 0s));
}

}  // namespace
}  // namespace vigil::daemon
