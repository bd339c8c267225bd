// The control thread's slow timer that gives a burst's freed memory back to the kernel
// (base/free_heap.h): a start-up, a reload, a status answer of thousands of members, a run of API
// writes; when the API is quiet (heap_trim.h).
#include "daemon/heap_trim.h"

#include <chrono>

#include "admin/server.h"
#include "base/free_heap.h"
#include "base/log.h"
#include "daemon/control_plane.h"

namespace vigil::daemon {
namespace {

using namespace std::chrono_literals;

constexpr Duration kTrimEvery = 5s;

}  // namespace

bool heap_trim_due(size_t free_bytes, bool api_quiet, Duration since_last_trim) {
  if (free_bytes <= kHeapTrimAbove) return false;
  return api_quiet || since_last_trim >= kHeapTrimAtLeastEvery;
}

void ControlPlane::heap_trim_tick() {
  const uint64_t requests = admin_ ? admin_->requests() : 0;
  const bool quiet = requests == heap_trim_requests_seen_ && !(admin_ && admin_->answering());
  heap_trim_requests_seen_ = requests;
  const TimePoint now = clock_.now();
  if (const size_t held = free_heap_bytes(); heap_trim_due(held, quiet, now - heap_trimmed_at_)) {
    const auto start = std::chrono::steady_clock::now();
    release_free_heap();
    heap_trimmed_at_ = now;
    log::debug("memory: gave back up to {} MiB the allocator held free, in {} ms", held >> 20,
               std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - start)
                   .count());
  }
  heap_trim_->arm(now + kTrimEvery);
}

}  // namespace vigil::daemon
