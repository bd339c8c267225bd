#include "base/free_heap.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <thread>
#include <vector>

namespace vigil {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kOwnAllocator = true;  // ASan's allocator replaces glibc's
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kOwnAllocator = true;
#else
constexpr bool kOwnAllocator = false;
#endif
#else
constexpr bool kOwnAllocator = false;
#endif

size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0;
  size_t resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// A burst of small allocations (the shape of a parsed YAML tree) freed in another order than
// made, so that the top of the heap stays in use and only trimming inside it gives pages back.
TEST(FreeHeap, ABurstFreedIsGivenBack) {
  if (kOwnAllocator) GTEST_SKIP() << "the sanitizer's allocator keeps its own free lists";
  constexpr size_t kChunks = 400'000;  // 400,000 x 200 B: about 80 MB
  std::vector<std::unique_ptr<char[]>> burst;
  burst.reserve(kChunks);
  for (size_t i = 0; i < kChunks; ++i) {
    burst.push_back(std::make_unique<char[]>(200));
    burst.back()[0] = static_cast<char>(i);  // touched: resident
  }
  auto keep = std::make_unique<char[]>(200);  // above the burst: the heap cannot just shrink
  keep[0] = 1;
  const size_t peak = resident_bytes();
  for (size_t i = 0; i < kChunks; i += 2) burst[i].reset();
  for (size_t i = 1; i < kChunks; i += 2) burst[i].reset();
  burst.clear();
  burst.shrink_to_fit();
  EXPECT_GT(free_heap_bytes(), 64u << 20);
  EXPECT_GT(resident_bytes() + (16u << 20), peak) << "freed memory stays resident before a trim";
  EXPECT_TRUE(release_free_heap());
  EXPECT_LT(resident_bytes() + (48u << 20), peak) << "the trim gave most of the burst back";
}

// A burst on another thread (the API's, rendering a status answer) after a large block was
// freed: glibc would have raised its thresholds and kept the other heap's free top resident,
// which malloc_trim(0) does not reach.
TEST(FreeHeap, AnotherThreadsBurstIsGivenBackWhenBounded) {
  if (kOwnAllocator) GTEST_SKIP() << "the sanitizer's allocator keeps its own free lists";
  bound_free_heap();
  {
    auto large = std::make_unique<char[]>(16u << 20);
    large[0] = 1;
  }
  const size_t before = resident_bytes();
  size_t peak = 0;
  std::thread([&] {
    std::vector<std::unique_ptr<char[]>> burst;
    for (size_t i = 0; i < 6'000; ++i) {  // 6,000 x 4 KiB: 24 MB
      burst.push_back(std::make_unique<char[]>(4096));
      burst.back()[0] = 1;
    }
    peak = resident_bytes();
    while (!burst.empty()) burst.pop_back();  // the newest first: the top shrinks
  }).join();
  EXPECT_GT(peak, before + (20u << 20));
  EXPECT_LT(resident_bytes(), before + kTrimTopAbove + (2u << 20));
}

}  // namespace
}  // namespace vigil
