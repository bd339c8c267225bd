// Buffers for bytes in flight, taken from a per-worker free list only while data moves and given
// back as soon as they drain, so an idle connection holds no buffer. Worker thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vigil::proxy {

struct Buffer {
  // 64 KiB: one loopback/GSO segment per read and write; 16 KiB costs a quarter more CPU per GB.
  static constexpr uint32_t kSize = 64 * 1024;
  uint32_t start = 0;  // first unsent byte
  uint32_t end = 0;    // one past the last received byte
  char data[kSize];

  bool empty() const { return start == end; }
  bool full() const { return end == kSize; }
  uint32_t pending() const { return end - start; }
};

class BufferPool {
 public:
  explicit BufferPool(size_t keep_free = 64) : keep_free_(keep_free) {}
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  ~BufferPool();

  Buffer* take();
  void give(Buffer* b);
  size_t in_use() const { return in_use_; }

 private:
  size_t keep_free_;  // free buffers kept beyond this are returned to the allocator
  size_t in_use_ = 0;
  std::vector<Buffer*> free_;
};

}  // namespace vigil::proxy
