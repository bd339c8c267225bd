// The control thread's slow timer that gives a burst's freed memory back to the kernel
// (base/free_heap.h): a start-up, a reload, a status answer of thousands of members, a run of API
// writes. Below the threshold a trim would return little and cost a heap walk for nothing.
#include <chrono>

#include "base/free_heap.h"
#include "base/log.h"
#include "daemon/control_plane.h"

namespace vigil::daemon {
namespace {

using namespace std::chrono_literals;

constexpr Duration kTrimEvery = 5s;
constexpr size_t kTrimAbove = 4u << 20;  // free bytes held

}  // namespace

void ControlPlane::heap_trim_tick() {
  if (const size_t held = free_heap_bytes(); held > kTrimAbove) {
    const auto start = std::chrono::steady_clock::now();
    release_free_heap();
    log::debug("memory: gave back up to {} MiB the allocator held free, in {} ms", held >> 20,
               std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - start)
                   .count());
  }
  heap_trim_->arm(clock_.now() + kTrimEvery);
}

}  // namespace vigil::daemon
