#include "base/free_heap.h"

#include <malloc.h>

namespace vigil {

size_t free_heap_bytes() { return mallinfo2().fordblks; }

bool release_free_heap() { return malloc_trim(0) != 0; }

void bound_free_heap() {
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMappedFrom));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(kTrimTopAbove));
}

}  // namespace vigil
