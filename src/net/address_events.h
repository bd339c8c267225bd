// What the kernel says when this host gains or loses an address: NETLINK_ROUTE's RTM_NEWADDR and
// RTM_DELADDR, parsed. Pure (the caller owns the socket); any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vigil::net {

struct AddressEvent {
  bool added = false;  // RTM_NEWADDR; false: RTM_DELADDR
  std::string ip;      // the address's bytes (4 or 16), as SocketAddress::ip_bytes()
  int interface = 0;   // its interface's index
};

// The events in one datagram read from a NETLINK_ROUTE socket joined to the address groups.
// Anything else (other message types, truncated messages, an address of another family or
// length) is skipped: the kernel's word is trusted for what it says, never read past.
std::vector<AddressEvent> parse_address_events(std::span<const uint8_t> datagram);

// A NETLINK_ROUTE datagram holding one message about `ip` (4 or 16 bytes): what the kernel sends
// when `added` (or removed) on interface `interface`. For tests and fuzz seeds.
std::vector<uint8_t> address_event_message(bool added, const std::string& ip, int interface);

}  // namespace vigil::net
