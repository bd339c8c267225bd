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

class TcpChecks::Check : public RunningProbe {
 public:
  Check(std::weak_ptr<TcpChecks> owner, int fd, ProbeCallback done, TimePoint started)
      : owner_(std::move(owner)), fd_(fd), done_(std::move(done)), started_(started) {}
  ~Check() override { close_socket(false); }

  void cancel() override {
    if (!done_) return;
    done_ = nullptr;
    if (auto owner = owner_.lock(); owner && fd_ >= 0) owner->forget(fd_);
    close_socket(false);
  }
  bool running() const override { return static_cast<bool>(done_); }

  // Reports `error` (0: the SYN-ACK came) unless cancelled meanwhile.
  void finish(int error, TimePoint now) {
    if (!done_) return;
    ProbeCallback done = std::move(done_);
    done_ = nullptr;
    const bool no_socket = fd_ < 0;
    close_socket(error == 0);
    model::CheckResult result;
    // A socket that could not be made at all never reached the member.
    if (error != 0) result = socket_failure(no_socket ? "socket" : "connect", error);
    result.duration = now - started_;
    done(std::move(result));
  }

 private:
  // A connected check ends with a reset: its ACK was held back, so the member's handshake never
  // completes, and no TIME_WAIT socket stays behind. A closed fd leaves the epoll set by itself.
  void close_socket(bool reset) {
    if (fd_ < 0) return;
    if (reset) {
      const linger now{.l_onoff = 1, .l_linger = 0};
      ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &now, sizeof now);
    }
    ::close(fd_);
    fd_ = -1;
  }

  std::weak_ptr<TcpChecks> owner_;
  int fd_;
  ProbeCallback done_;  // empty once finished or cancelled
  TimePoint started_;
};

std::shared_ptr<TcpChecks> TcpChecks::create(asio::io_context& io, const Clock& clock,
                                             OpenSocket open_socket) {
  const int fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (fd < 0) return nullptr;
  return std::shared_ptr<TcpChecks>(new TcpChecks(io, clock, fd, open_socket));
}

TcpChecks::TcpChecks(asio::io_context& io, const Clock& clock, int epoll_fd, OpenSocket open_socket)
    : io_(io),
      clock_(clock),
      open_socket_(open_socket),
      watcher_(std::make_unique<Watcher>(io, epoll_fd)) {}

TcpChecks::~TcpChecks() = default;

int TcpChecks::epoll_fd() const { return watcher_->descriptor.native_handle(); }

ProbeHandle TcpChecks::start(const asio::ip::tcp::endpoint& endpoint, ProbeCallback done) {
  const TimePoint started = clock_.now();
  const int fd =
      open_socket_(endpoint.protocol().family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int error = fd < 0 ? errno : 0;
  bool pending = false;
  if (fd >= 0) {
    // Delayed-ACK mode from the start: the SYN-ACK is not acknowledged at once (see close_socket).
    const int off = 0;
    ::setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &off, sizeof off);
    if (::connect(fd, endpoint.data(), endpoint.size()) != 0) {
      error = errno;
      pending = error == EINPROGRESS;
    }
  }
  auto check = std::make_shared<Check>(weak_from_this(), fd, std::move(done), started);
  const uint32_t generation = next_generation_++;
  if (pending) {
    epoll_event ev{.events = EPOLLOUT,
                   .data = {.u64 = (uint64_t{generation} << 32) | static_cast<uint32_t>(fd)}};
    if (::epoll_ctl(epoll_fd(), EPOLL_CTL_ADD, fd, &ev) != 0) {
      error = errno;
      pending = false;
    }
  }
  if (pending) {
    const auto slot = static_cast<size_t>(fd);
    if (slot >= by_fd_.size()) {
      by_fd_.resize(slot + 1);
      generation_.resize(slot + 1);
    }
    by_fd_[slot] = check;
    generation_[slot] = generation;
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
  for (;;) {
    const int n = ::epoll_wait(epoll_fd(), events.data(), static_cast<int>(events.size()), 0);
    if (n < 0 && errno == EINTR) continue;
    for (int i = 0; i < n; ++i) {
      const auto fd = static_cast<int>(events[i].data.u64 & 0xffffffffu);
      const auto generation = static_cast<uint32_t>(events[i].data.u64 >> 32);
      // Reading SO_ERROR clears it: never on an fd that a newer check has taken over.
      if (!current(fd, generation)) continue;
      int error = 0;
      // Writable without an error or a hang-up is a connect that succeeded: no system call to
      // ask, for nearly every check. A failed one reports EPOLLERR and says why in SO_ERROR.
      if ((events[i].events & (EPOLLERR | EPOLLHUP)) != 0) {
        socklen_t len = sizeof error;
        if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0) error = errno;
      }
      complete(fd, generation, error);
    }
    if (n < static_cast<int>(events.size())) break;
  }
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
