#include "health/tcp_checks.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <cerrno>
#include <system_error>

namespace vigil::health {

namespace asio = boost::asio;
using model::Outcome;

struct TcpChecks::Watcher {
  Watcher(asio::io_context& io, int fd) : descriptor(io, fd) {}
  asio::posix::stream_descriptor descriptor;  // owns the epoll fd
};

namespace {

// Ends a connection with a reset, not a FIN: no TIME_WAIT socket stays behind.
void close_with_reset(int fd) {
  const linger now{.l_onoff = 1, .l_linger = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &now, sizeof now);
  ::close(fd);
}

}  // namespace

class TcpChecks::Check : public RunningProbe {
 public:
  Check(std::weak_ptr<TcpChecks> owner, int fd, int family, ProbeCallback done, TimePoint started)
      : owner_(std::move(owner)),
        fd_(fd),
        family_(family),
        done_(std::move(done)),
        started_(started) {}
  ~Check() override { release_socket(); }

  void cancel() override {
    if (!done_) return;
    done_ = nullptr;
    if (auto owner = owner_.lock(); owner && fd_ >= 0) owner->forget(fd_);
    release_socket();
  }
  bool running() const override { return static_cast<bool>(done_); }
  // It ends at the SYN-ACK: while it runs, the member has not answered.
  bool answered() const override { return false; }

  // Reports `error` (0: the SYN-ACK came) unless cancelled meanwhile.
  void finish(int error, TimePoint now) {
    if (!done_) return;
    ProbeCallback done = std::move(done_);
    done_ = nullptr;
    const bool no_socket = fd_ < 0;
    release_socket();
    model::CheckResult result;
    // A socket that could not be made at all never reached the member.
    if (error != 0) result = socket_failure(no_socket ? "socket" : "connect", error);
    result.duration = now - started_;
    done(std::move(result));
  }

 private:
  // A connected check ends with a reset: its ACK was held back, so the member's handshake never
  // completes, and no TIME_WAIT socket stays behind. The socket goes back to its owner for the
  // next check, or is closed when the owner is gone.
  void release_socket() {
    if (fd_ < 0) return;
    if (auto owner = owner_.lock()) {
      owner->release(fd_, family_);
    } else {
      close_with_reset(fd_);
    }
    fd_ = -1;
  }

  std::weak_ptr<TcpChecks> owner_;
  int fd_;
  int family_;
  ProbeCallback done_;  // empty once finished or cancelled
  TimePoint started_;
};

std::shared_ptr<TcpChecks> TcpChecks::create(asio::io_context& io, const Clock& clock,
                                             CheckSockets sockets) {
  const int fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (fd < 0) return nullptr;
  return std::shared_ptr<TcpChecks>(new TcpChecks(io, clock, fd, sockets));
}

TcpChecks::TcpChecks(asio::io_context& io, const Clock& clock, int epoll_fd, CheckSockets sockets)
    : io_(io),
      clock_(clock),
      sockets_(sockets),
      watcher_(std::make_unique<Watcher>(io, epoll_fd)) {}

TcpChecks::~TcpChecks() {
  for (const int fd : idle_v4_) ::close(fd);
  for (const int fd : idle_v6_) ::close(fd);
}

int TcpChecks::epoll_fd() const { return watcher_->descriptor.native_handle(); }

int TcpChecks::take_socket(int family) {
  std::vector<int>& idle = family == AF_INET6 ? idle_v6_ : idle_v4_;
  if (!idle.empty() && !in_batch_) {
    const int fd = idle.back();
    idle.pop_back();
    return fd;
  }
  const int fd = sockets_.open(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  // Edge-triggered: an idle socket reads as writable and hung up for as long as it stays idle.
  const uint32_t generation = next_generation_++;
  epoll_event ev{.events = EPOLLOUT | EPOLLET,
                 .data = {.u64 = (uint64_t{generation} << 32) | static_cast<uint32_t>(fd)}};
  if (::epoll_ctl(epoll_fd(), EPOLL_CTL_ADD, fd, &ev) != 0) {
    const int error = errno;
    ::close(fd);
    errno = error;
    return -1;
  }
  const auto slot = static_cast<size_t>(fd);
  if (slot >= by_fd_.size()) {
    by_fd_.resize(slot + 1);
    generation_.resize(slot + 1);
  }
  generation_[slot] = generation;
  return fd;
}

void TcpChecks::release(int fd, int family) {
  std::vector<int>& idle = family == AF_INET6 ? idle_v6_ : idle_v4_;
  const sockaddr unspec{.sa_family = AF_UNSPEC, .sa_data = {}};
  // A socket that cannot be disconnected is closed; so is one over what is kept.
  if (idle.size() >= sockets_.idle_tcp || ::connect(fd, &unspec, sizeof unspec) != 0) {
    close_with_reset(fd);
    return;
  }
  idle.push_back(fd);
}

ProbeHandle TcpChecks::start(const asio::ip::tcp::endpoint& endpoint, ProbeCallback done) {
  const TimePoint started = clock_.now();
  const int family = endpoint.protocol().family();
  const int fd = take_socket(family);
  int error = fd < 0 ? errno : 0;
  bool pending = false;
  if (fd >= 0) {
    // Delayed-ACK mode from the start: the SYN-ACK is not acknowledged at once (see
    // release_socket). A disconnect turns it back on, so every check sets it again.
    const int off = 0;
    ::setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &off, sizeof off);
    if (::connect(fd, endpoint.data(), endpoint.size()) != 0) {
      error = errno;
      pending = error == EINPROGRESS;
    }
  }
  auto check = std::make_shared<Check>(weak_from_this(), fd, family, std::move(done), started);
  if (pending) {
    by_fd_[static_cast<size_t>(fd)] = check;
    ++in_flight_;
    if (!watching_) watch();
  } else {
    // Done already (loopback may answer inside connect(), or socket() failed): reported from
    // the io_context all the same, never inside start().
    asio::post(io_, [check, error, self = shared_from_this()] {
      check->finish(error, self->clock_.now());
    });
  }
  return ProbeHandle(check);
}

void TcpChecks::watch() {
  watching_ = true;
  watcher_->descriptor.async_wait(asio::posix::stream_descriptor::wait_read,
                                  [self = shared_from_this()](const boost::system::error_code& ec) {
                                    if (ec) {
                                      self->watching_ = false;
                                      return;
                                    }
                                    self->on_ready();
                                  });
}

void TcpChecks::on_ready() {
  // The set is watched edge-triggered: take every event it holds before waiting again.
  std::array<epoll_event, 256> events;
  in_batch_ = true;
  for (;;) {
    const int n = ::epoll_wait(epoll_fd(), events.data(), static_cast<int>(events.size()), 0);
    if (n < 0 && errno == EINTR) continue;
    for (int i = 0; i < n; ++i) {
      const auto fd = static_cast<int>(events[i].data.u64 & 0xffffffffu);
      const auto generation = static_cast<uint32_t>(events[i].data.u64 >> 32);
      // An idle socket's event, or one for a check cancelled earlier in this batch.
      if (!current(fd, generation)) continue;
      int error = 0;
      // Writable without an error or a hang-up is a connect that succeeded: no system call to
      // ask, for nearly every check. A failed one reports EPOLLERR and says why in SO_ERROR.
      if ((events[i].events & (EPOLLERR | EPOLLHUP)) != 0) {
        socklen_t len = sizeof error;
        if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0) error = errno;
        // Hung up with no error to say why: not a connection all the same.
        if (error == 0) error = ECONNRESET;
      }
      complete(fd, generation, error);
    }
    if (n < static_cast<int>(events.size())) break;
  }
  in_batch_ = false;
  watching_ = false;
  if (in_flight_ > 0) watch();
}

// False when the slot was emptied or reused since: the event was for a check cancelled in this
// same batch of events.
bool TcpChecks::current(int fd, uint32_t generation) const {
  const auto slot = static_cast<size_t>(fd);
  return slot < by_fd_.size() && by_fd_[slot] && generation_[slot] == generation;
}

void TcpChecks::complete(int fd, uint32_t generation, int error) {
  if (!current(fd, generation)) return;
  const std::shared_ptr<Check> check = std::move(by_fd_[static_cast<size_t>(fd)]);
  --in_flight_;
  check->finish(error, clock_.now());  // may start and cancel other checks
}

void TcpChecks::forget(int fd) {
  const auto slot = static_cast<size_t>(fd);
  if (slot < by_fd_.size() && by_fd_[slot]) {
    by_fd_[slot].reset();
    --in_flight_;
  }
}

}  // namespace vigil::health
