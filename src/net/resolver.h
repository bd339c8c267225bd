// Resolver: host names looked up off the control thread. One thread of its own runs getaddrinfo
// (blocking, uncancellable) for a bounded queue of requests; each answer is handed back through
// `deliver`, which the control thread gives to post the callback onto its own loop. Any thread
// may call resolve(); the callbacks run wherever `deliver` puts them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "net/address.h"

namespace vigil::net {

class Resolver {
 public:
  using Addresses = Result<std::vector<SocketAddress>>;
  using LookupFn = std::function<Addresses(const std::string& host, uint16_t port)>;
  using Done = std::function<void(Addresses)>;
  // Runs `answer` where the answers belong (the control thread's loop).
  using DeliverFn = std::function<void(std::function<void()> answer)>;

  // `lookup` is net::resolve but in tests (a lookup that blocks, as a dead DNS server makes
  // getaddrinfo do). At most `max_queued` requests wait; more are refused at once.
  explicit Resolver(DeliverFn deliver, LookupFn lookup = net::resolve, size_t max_queued = 10000);
  // Does not wait for a lookup under way (getaddrinfo cannot be interrupted): the thread ends on
  // its own once it returns, and its answer is dropped.
  ~Resolver();
  Resolver(const Resolver&) = delete;
  Resolver& operator=(const Resolver&) = delete;

  // Queues a lookup; `done` gets the addresses or the error. False (and `done` never runs) when
  // the queue is full.
  bool resolve(std::string host, uint16_t port, Done done);

  struct Shared;  // the queue, shared with the thread, which may outlive this object

 private:
  std::shared_ptr<Shared> shared_;
};

}  // namespace vigil::net
