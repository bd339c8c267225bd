// The heap's free memory given back to the kernel after a burst. glibc's malloc keeps what was
// freed for reuse, so the resident size stays at a burst's peak: parsing a file of ten thousand
// listeners peaks at tens of MB of parsed YAML and drafts, all free once the file is applied, and a
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

// Fixes malloc's thresholds, once at start-up: a block from kMappedFrom up is mapped on its own
// and unmapped when freed, and a heap whose free top passes kTrimTopAbove gives it back at once.
// glibc raises both by itself after a large block is freed (up to 32 and 64 MiB), and
// malloc_trim(0) trims the top of the main thread's heap only: the status answer's buffers on
// the API's thread then stayed resident there, 16 MB at 30,000 members after some answers.
inline constexpr size_t kMappedFrom = 1u << 20;
inline constexpr size_t kTrimTopAbove = 4u << 20;
void bound_free_heap();

}  // namespace vigil
