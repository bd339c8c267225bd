#include "proxy/pipe_pool.h"

#include <fcntl.h>
#include <unistd.h>

namespace vigil::proxy {

PipePool::~PipePool() {
  for (Pipe* p : free_) close_pipe(p);
}

void PipePool::close_pipe(Pipe* p) {
  ::close(p->read_fd);
  ::close(p->write_fd);
  delete p;
}

Pipe* PipePool::take() {
  if (in_use_ >= max_in_use_) return nullptr;
  Pipe* p = nullptr;
  if (!free_.empty()) {
    p = free_.back();
    free_.pop_back();
  } else {
    int fds[2];
    if (::pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) return nullptr;
    p = new Pipe{.read_fd = fds[0], .write_fd = fds[1]};
    // The kernel may give less than asked (pipe-max-size, per-user limits); use what we got.
    ::fcntl(p->write_fd, F_SETPIPE_SZ, kWantedSize);
    const int size = ::fcntl(p->write_fd, F_GETPIPE_SZ);
    p->capacity = size > 0 ? static_cast<uint32_t>(size) : 65536;
  }
  ++in_use_;
  return p;
}

void PipePool::give(Pipe* p) {
  --in_use_;
  if (p->pending != 0 || free_.size() >= keep_free_) {
    close_pipe(p);
    return;
  }
  free_.push_back(p);
}

}  // namespace vigil::proxy
