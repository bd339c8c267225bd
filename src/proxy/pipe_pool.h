// Pipes for splice(): bytes of a streaming direction move socket -> pipe -> socket inside the
// kernel, never copied to user space. A per-worker free list, since creating a pipe costs two
// syscalls and two fds; a pipe is taken when a direction starts streaming and given back as soon
// as it is empty again, so idle connections hold none. Worker thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vigil::proxy {

struct Pipe {
  int read_fd = -1;
  int write_fd = -1;
  uint32_t capacity = 0;  // what F_SETPIPE_SZ gave us
  uint32_t pending = 0;   // bytes in the pipe, not yet sent on
};

class PipePool {
 public:
  static constexpr uint32_t kWantedSize = 1 << 20;  // 1 MiB: fewer, larger splices

  explicit PipePool(size_t max_in_use = 1024, size_t keep_free = 64)
      : max_in_use_(max_in_use), keep_free_(keep_free) {}
  PipePool(const PipePool&) = delete;
  PipePool& operator=(const PipePool&) = delete;
  ~PipePool();

  // Null when the budget is spent or the kernel refuses (out of fds): the caller keeps copying.
  Pipe* take();
  // A pipe with bytes still in it cannot be reused and is closed.
  void give(Pipe* p);
  size_t in_use() const { return in_use_; }

 private:
  static void close_pipe(Pipe* p);

  size_t max_in_use_;
  size_t keep_free_;
  size_t in_use_ = 0;
  std::vector<Pipe*> free_;
};

}  // namespace vigil::proxy
