#include "proxy/buffer_pool.h"

namespace vigil::proxy {

BufferPool::~BufferPool() {
  for (Buffer* b : free_) delete b;
}

Buffer* BufferPool::take() {
  ++in_use_;
  if (free_.empty()) return new Buffer;
  Buffer* b = free_.back();
  free_.pop_back();
  return b;
}

void BufferPool::give(Buffer* b) {
  --in_use_;
  b->start = b->end = 0;
  if (free_.size() >= keep_free_) {
    delete b;
    return;
  }
  free_.push_back(b);
}

}  // namespace vigil::proxy
