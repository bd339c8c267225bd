// When the control thread gives the allocator's free memory back to the kernel (heap_trim.cc).
// malloc_trim(3) walks every free chunk of every arena: 10-45 ms after reads of 10,000 load
// balancers, time that an API write arriving meanwhile waits for. So it waits for a quiet API,
// when the memory is freed and no one waits, and only an API that is never quiet is trimmed on
// a clock.
#pragma once

#include <cstddef>

#include "base/clock.h"

namespace vigil::daemon {

inline constexpr size_t kHeapTrimAbove = 4u << 20;  // free bytes held; below, little comes back
inline constexpr Duration kHeapTrimAtLeastEvery = std::chrono::seconds(60);

// Pure. `free_bytes`: what the allocator holds free; `api_quiet`: no API request began since the
// last look and none is being answered; `since_last_trim`: time since the last trim.
bool heap_trim_due(size_t free_bytes, bool api_quiet, Duration since_last_trim);

}  // namespace vigil::daemon
