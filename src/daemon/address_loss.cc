#include "daemon/address_loss.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <cerrno>
#include <span>

#include "base/log.h"
#include "net/address.h"
#include "net/address_events.h"
#include "net/interfaces.h"

namespace vigil::daemon {

struct AddressLoss::Socket {
  Socket(boost::asio::io_context& io, int fd) : descriptor(io, fd) {}
  boost::asio::posix::stream_descriptor descriptor;  // owns the netlink fd
  std::array<uint8_t, 16384> buffer{};
};

namespace {

// A netlink socket joined to the IPv4 and IPv6 address groups; -1 (errno set) when refused.
int open_address_socket() {
  const int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) return -1;
  sockaddr_nl local{};
  local.nl_family = AF_NETLINK;
  local.nl_groups = RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR;
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

// Still held elsewhere (the same address on two interfaces, or added back already): not lost.
bool still_held(const std::string& text) {
  auto held = net::local_addresses();
  return held && std::ranges::find(*held, text) != held->end();
}

}  // namespace

AddressLoss::AddressLoss(boost::asio::io_context& io, OnLost on_lost, OnGained on_gained)
    : on_lost_(std::move(on_lost)), on_gained_(std::move(on_gained)) {
  const int fd = open_address_socket();
  if (fd < 0) {
    log::warn(
        "cannot watch this host's addresses ({}): sessions on an address that moves away "
        "are left to their clients' timers",
        std::strerror(errno));
    return;
  }
  socket_ = std::make_unique<Socket>(io, fd);
  read();
}

AddressLoss::~AddressLoss() = default;

void AddressLoss::read() {
  socket_->descriptor.async_read_some(
      boost::asio::buffer(socket_->buffer),
      [this, alive = std::weak_ptr<int>(alive_)](const boost::system::error_code& ec, size_t n) {
        if (alive.expired() || ec == boost::asio::error::operation_aborted) return;  // destroyed
        // ENOBUFS: the kernel dropped events while we were busy; the next ones still come.
        if (!ec) on_datagram(n);
        read();
      });
}

void AddressLoss::on_datagram(size_t size) {
  for (const net::AddressEvent& e :
       net::parse_address_events(std::span(socket_->buffer.data(), size))) {
    const std::string text = net::SocketAddress::from_ip_bytes(e.ip, 0).ip_string();
    if (e.added) {
      if (on_gained_) on_gained_(e.ip, text);
    } else if (!still_held(text)) {
      on_lost_(e.ip, text);
    }
  }
}

}  // namespace vigil::daemon
