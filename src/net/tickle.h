// Tickle ACKs (the technique of CTDB, Samba's cluster, after an IP takeover): a bare TCP ACK with
// sequence and acknowledgement numbers 0, sent to a client from the address:port it connected
// to. The client's stack finds it outside the window and answers with a challenge ACK (RFC 5961)
// carrying its real numbers, to that address. The address's holder, which has no socket for the
// connection, answers that with a reset the client accepts: the client learns at once that its
// connection is gone, instead of when its own timer runs out. Any thread.
#pragma once

#include <cstdint>
#include <vector>

#include "base/error.h"
#include "net/address.h"
#include "net/fd.h"

namespace vigil::net {

// The whole IP packet (IPv4 or IPv6 header, then the TCP ACK) from `from` to `to`, both of one
// family; empty when they are not.
std::vector<uint8_t> tickle_packet(const SocketAddress& from, const SocketAddress& to);

// The ones' complement sum of RFC 1071 over `data`, folded, starting from `sum`.
uint16_t internet_checksum(const uint8_t* data, size_t size, uint32_t sum = 0);

// Raw sockets that send whole IP packets with any source address (IPPROTO_RAW; needs
// CAP_NET_RAW). Made once, when an address is lost; a family whose socket was refused sends
// nothing and says why.
class TickleSender {
 public:
  static Result<TickleSender> open();
  // Sends one tickle; false (errno set) when the kernel refused it.
  bool send(const SocketAddress& from, const SocketAddress& to) const;

 private:
  Fd v4_;
  Fd v6_;
};

}  // namespace vigil::net
