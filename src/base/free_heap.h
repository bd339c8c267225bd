// The heap's free memory given back to the kernel after a burst. glibc's malloc keeps what was
// freed for reuse, so the resident size stays at a burst's peak: parsing a file of ten thousand
// listeners peaks at about 180 MB of yaml-cpp nodes, all free once the file is applied, and a
// /v1/status of 30,000 members builds tens of MB of views and JSON. malloc_trim(3) hands the
// free pages back. It walks the heap (milliseconds at hundreds of MB), so it runs after a
// start-up or reload and from a slow timer (ControlPlane), never per request.
#pragma once

#include <cstddef>

namespace vigil {

// Bytes the allocator holds free, in every arena (mallinfo2(3)).
size_t free_heap_bytes();
// Gives the free pages back (malloc_trim(0)); whether any were.
bool release_free_heap();

}  // namespace vigil
