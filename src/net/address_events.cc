#include "net/address_events.h"

#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstring>

namespace vigil::net {
namespace {

// One RTM_NEWADDR or RTM_DELADDR message's payload (after the nlmsghdr), `len` bytes of it.
// IFA_LOCAL is the address this host holds; IFA_ADDRESS is the peer's on a point-to-point link
// and the same as IFA_LOCAL elsewhere, so it counts only when IFA_LOCAL is absent.
bool parse_one(const uint8_t* payload, size_t len, bool added, AddressEvent& out) {
  if (len < NLMSG_ALIGN(sizeof(ifaddrmsg))) return false;
  ifaddrmsg ifa;
  std::memcpy(&ifa, payload, sizeof ifa);
  const size_t want = ifa.ifa_family == AF_INET ? 4 : ifa.ifa_family == AF_INET6 ? 16 : 0;
  if (want == 0) return false;
  std::string local, address;
  size_t offset = NLMSG_ALIGN(sizeof(ifaddrmsg));
  while (offset + sizeof(rtattr) <= len) {
    rtattr rta;
    std::memcpy(&rta, payload + offset, sizeof rta);
    if (rta.rta_len < sizeof(rtattr) || offset + rta.rta_len > len) break;
    const size_t data_len = rta.rta_len - RTA_LENGTH(0);
    const auto* data = reinterpret_cast<const char*>(payload + offset + RTA_LENGTH(0));
    if (data_len == want && rta.rta_type == IFA_LOCAL) local.assign(data, data_len);
    if (data_len == want && rta.rta_type == IFA_ADDRESS) address.assign(data, data_len);
    offset += RTA_ALIGN(rta.rta_len);
  }
  out.ip = local.empty() ? address : local;
  if (out.ip.empty()) return false;
  out.added = added;
  out.interface = static_cast<int>(ifa.ifa_index);
  return true;
}

}  // namespace

std::vector<AddressEvent> parse_address_events(std::span<const uint8_t> datagram) {
  std::vector<AddressEvent> events;
  size_t offset = 0;
  while (offset + sizeof(nlmsghdr) <= datagram.size()) {
    nlmsghdr h;
    std::memcpy(&h, datagram.data() + offset, sizeof h);
    if (h.nlmsg_len < sizeof(nlmsghdr) || offset + h.nlmsg_len > datagram.size()) break;
    if (h.nlmsg_type == RTM_NEWADDR || h.nlmsg_type == RTM_DELADDR) {
      AddressEvent e;
      if (parse_one(datagram.data() + offset + NLMSG_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN,
                    h.nlmsg_type == RTM_NEWADDR, e)) {
        events.push_back(std::move(e));
      }
    }
    offset += NLMSG_ALIGN(h.nlmsg_len);
  }
  return events;
}

std::vector<uint8_t> address_event_message(bool added, const std::string& ip, int interface) {
  const size_t attr = RTA_LENGTH(ip.size());
  const size_t len = NLMSG_LENGTH(NLMSG_ALIGN(sizeof(ifaddrmsg)) + RTA_ALIGN(attr));
  std::vector<uint8_t> out(len, 0);
  const nlmsghdr h{.nlmsg_len = static_cast<uint32_t>(len),
                   .nlmsg_type = static_cast<uint16_t>(added ? RTM_NEWADDR : RTM_DELADDR),
                   .nlmsg_flags = 0,
                   .nlmsg_seq = 0,
                   .nlmsg_pid = 0};
  std::memcpy(out.data(), &h, sizeof h);
  const ifaddrmsg ifa{.ifa_family = static_cast<uint8_t>(ip.size() == 4 ? AF_INET : AF_INET6),
                      .ifa_prefixlen = static_cast<uint8_t>(ip.size() == 4 ? 32 : 128),
                      .ifa_flags = 0,
                      .ifa_scope = 0,
                      .ifa_index = static_cast<uint32_t>(interface)};
  std::memcpy(out.data() + NLMSG_HDRLEN, &ifa, sizeof ifa);
  const rtattr rta{.rta_len = static_cast<uint16_t>(attr), .rta_type = IFA_LOCAL};
  uint8_t* at = out.data() + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifaddrmsg));
  std::memcpy(at, &rta, sizeof rta);
  std::memcpy(at + RTA_LENGTH(0), ip.data(), ip.size());
  return out;
}

}  // namespace vigil::net
