#include "net/tickle.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace vigil::net {
namespace {

constexpr size_t kTcpHeader = 20;
constexpr uint8_t kTcpAck = 0x10;
// Any window will do: the client answers the numbers, not the window. CTDB sends 1234.
constexpr uint16_t kWindow = 1234;

void put16(uint8_t* at, uint16_t v) {
  at[0] = static_cast<uint8_t>(v >> 8);
  at[1] = static_cast<uint8_t>(v);
}

// The TCP header (numbers 0, ACK) at `tcp`, with its checksum over the pseudo-header `pseudo`.
void put_tcp(uint8_t* tcp, const SocketAddress& from, const SocketAddress& to,
             const std::vector<uint8_t>& pseudo) {
  put16(tcp, from.port());
  put16(tcp + 2, to.port());
  tcp[12] = (kTcpHeader / 4) << 4;  // data offset, no options
  tcp[13] = kTcpAck;
  put16(tcp + 14, kWindow);
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < pseudo.size(); i += 2) sum += (pseudo[i] << 8) | pseudo[i + 1];
  put16(tcp + 16, internet_checksum(tcp, kTcpHeader, sum));
}

}  // namespace

uint16_t internet_checksum(const uint8_t* data, size_t size, uint32_t sum) {
  for (size_t i = 0; i + 1 < size; i += 2) sum += (data[i] << 8) | data[i + 1];
  if (size % 2 == 1) sum += data[size - 1] << 8;
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

std::vector<uint8_t> tickle_packet(const SocketAddress& from, const SocketAddress& to) {
  const std::string_view src = from.ip_bytes();
  const std::string_view dst = to.ip_bytes();
  if (src.size() != dst.size() || (src.size() != 4 && src.size() != 16)) return {};
  // The pseudo-header the TCP checksum covers: addresses, protocol, TCP length.
  std::vector<uint8_t> pseudo(src.begin(), src.end());
  pseudo.insert(pseudo.end(), dst.begin(), dst.end());
  if (src.size() == 4) {
    pseudo.insert(pseudo.end(), {0, IPPROTO_TCP, 0, kTcpHeader});
    std::vector<uint8_t> packet(20 + kTcpHeader, 0);
    packet[0] = 0x45;  // IPv4, 20-byte header
    put16(&packet[2], static_cast<uint16_t>(packet.size()));
    put16(&packet[6], 0x4000);  // don't fragment
    packet[8] = 64;             // TTL
    packet[9] = IPPROTO_TCP;
    std::memcpy(&packet[12], src.data(), 4);
    std::memcpy(&packet[16], dst.data(), 4);
    put16(&packet[10], internet_checksum(packet.data(), 20));
    put_tcp(&packet[20], from, to, pseudo);
    return packet;
  }
  pseudo.insert(pseudo.end(), {0, 0, 0, kTcpHeader, 0, 0, 0, IPPROTO_TCP});
  std::vector<uint8_t> packet(40 + kTcpHeader, 0);
  packet[0] = 0x60;  // IPv6
  put16(&packet[4], kTcpHeader);
  packet[6] = IPPROTO_TCP;
  packet[7] = 64;  // hop limit
  std::memcpy(&packet[8], src.data(), 16);
  std::memcpy(&packet[24], dst.data(), 16);
  put_tcp(&packet[40], from, to, pseudo);
  return packet;
}

Result<TickleSender> TickleSender::open() {
  TickleSender s;
  s.v4_ = Fd(::socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW));
  if (!s.v4_.valid()) return fail(std::string("raw socket: ") + std::strerror(errno));
  // IPv6 raw sockets take whole packets since Linux 4.5; without one, IPv6 tickles fail alone.
  s.v6_ = Fd(::socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW));
  return s;
}

bool TickleSender::send(const SocketAddress& from, const SocketAddress& to) const {
  const std::vector<uint8_t> packet = tickle_packet(from, to);
  const Fd& fd = to.ip_bytes().size() == 4 ? v4_ : v6_;
  if (packet.empty() || !fd.valid()) {
    errno = EAFNOSUPPORT;
    return false;
  }
  // The kernel routes by the destination; the port in it must be 0 for raw sockets.
  SocketAddress dst = SocketAddress::from_ip_bytes(to.ip_bytes(), 0);
  return ::sendto(fd.get(), packet.data(), packet.size(), 0, dst.sockaddr_ptr(), dst.size()) ==
         static_cast<ssize_t>(packet.size());
}

}  // namespace vigil::net
