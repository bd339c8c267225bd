// TcpChecks: TCP checks of IP addresses, run on an epoll set of their own, without Asio's per-
// operation machinery. With ten thousand members checked every second, each check was paying
// for an Asio operation object, three extra system calls (FIONBIO, a poll() on completion, an
// epoll_ctl on close) and their bookkeeping: more than the connect itself. Here a check is the
// least the kernel needs. A check's socket is kept for the next check when it ends: it is
// disconnected (connect() to AF_UNSPEC, which resets a connected one as close() with SO_LINGER 0
// would) and stays in the epoll set, so a check is one setsockopt and two connects; a socket is
// opened, added to the set and closed only when none is idle (SO_ERROR is asked only when the
// connect failed). The set's own fd is watched by the io_context, so every callback still runs
// on the control thread.
// Private to health/ (the Prober uses it). Control thread only.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/clock.h"
#include "health/local_failure.h"
#include "health/probe.h"

namespace vigil::health {

class TcpChecks : public std::enable_shared_from_this<TcpChecks> {
 public:
  // Fails (nullptr) only when the epoll set cannot be made; the caller then uses Asio.
  // `sockets` makes the checks' sockets and says how many are kept between checks.
  static std::shared_ptr<TcpChecks> create(boost::asio::io_context& io, const Clock& clock,
                                           CheckSockets sockets);
  ~TcpChecks();
  TcpChecks(const TcpChecks&) = delete;
  TcpChecks& operator=(const TcpChecks&) = delete;

  // Checks `endpoint` as a TCP monitor does: passes at the SYN-ACK, then resets. `done` is
  // called once, later, from the io_context, unless the handle is cancelled first. This object
  // stays alive while checks are in flight, through its pending wait on the io_context.
  ProbeHandle start(const boost::asio::ip::tcp::endpoint& endpoint, ProbeCallback done);

  class Check;  // public for the .cc; an in-flight check

 private:
  TcpChecks(boost::asio::io_context& io, const Clock& clock, int epoll_fd, CheckSockets sockets);
  int epoll_fd() const;
  // A socket for a check of `family`: an idle one, or a new one added to the set; -1 with errno.
  int take_socket(int family);
  // A check's socket, done with: disconnected and kept idle, or closed.
  void release(int fd, int family);
  void watch();     // waits, through the io_context, for the set to have events
  void on_ready();  // takes every event the set has
  bool current(int fd, uint32_t generation) const;
  // Ends the check in `fd`'s slot, if `generation` is still its, with `error` (0: connected).
  void complete(int fd, uint32_t generation, int error);
  void forget(int fd);  // a cancelled check's slot
  friend class Check;

  boost::asio::io_context& io_;
  const Clock& clock_;
  CheckSockets sockets_;
  struct Watcher;
  std::unique_ptr<Watcher> watcher_;  // the epoll fd, as the io_context sees it
  bool watching_ = false;
  // In flight, by socket fd (fds are small numbers): the set's events name their fd. A socket's
  // generation, given when it joins the set, tells a stale event (fetched before the socket was
  // closed and its fd number reused) apart.
  std::vector<std::shared_ptr<Check>> by_fd_;
  std::vector<uint32_t> generation_;
  uint32_t next_generation_ = 1;
  size_t in_flight_ = 0;
  // Disconnected sockets in the set. The kernel works out an event when it is fetched, so an
  // event queued while a socket was idle reads as its new check's state. Only an event already
  // fetched is stale: while a batch is handled (in_batch_), checks open new sockets.
  std::vector<int> idle_v4_;
  std::vector<int> idle_v6_;
  bool in_batch_ = false;
};

}  // namespace vigil::health
