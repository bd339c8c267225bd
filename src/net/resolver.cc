#include "net/resolver.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace vigil::net {

struct Resolver::Shared {
  struct Request {
    std::string host;
    uint16_t port = 0;
    Done done;
  };
  DeliverFn deliver;
  LookupFn lookup;
  size_t max_queued = 0;
  std::mutex mu;  // the queue is the only state both threads touch; never on the hot path
  std::condition_variable wake;
  std::deque<Request> queue;
  bool stopped = false;
};

namespace {

void run(const std::shared_ptr<Resolver::Shared>& s) {
  for (;;) {
    decltype(s->queue)::value_type r;
    {
      std::unique_lock lock(s->mu);
      s->wake.wait(lock, [&] { return s->stopped || !s->queue.empty(); });
      if (s->stopped) return;
      r = std::move(s->queue.front());
      s->queue.pop_front();
    }
    Resolver::Addresses found = s->lookup(r.host, r.port);
    std::lock_guard lock(s->mu);
    // After the destructor the control thread's loop may be gone: drop the answer.
    if (s->stopped) return;
    s->deliver(
        [done = std::move(r.done), found = std::move(found)]() mutable { done(std::move(found)); });
  }
}

}  // namespace

Resolver::Resolver(DeliverFn deliver, LookupFn lookup, size_t max_queued)
    : shared_(std::make_shared<Shared>()) {
  shared_->deliver = std::move(deliver);
  shared_->lookup = std::move(lookup);
  shared_->max_queued = max_queued;
  std::thread([s = shared_] { run(s); }).detach();
}

Resolver::~Resolver() {
  {
    std::lock_guard lock(shared_->mu);
    shared_->stopped = true;
    shared_->queue.clear();
  }
  shared_->wake.notify_all();
}

bool Resolver::resolve(std::string host, uint16_t port, Done done) {
  {
    std::lock_guard lock(shared_->mu);
    if (shared_->queue.size() >= shared_->max_queued) return false;
    shared_->queue.push_back({.host = std::move(host), .port = port, .done = std::move(done)});
  }
  shared_->wake.notify_one();
  return true;
}

}  // namespace vigil::net
