// The PROXY protocol on a session's two legs. From an upstream load balancer (accept_proxy): the
// header is read before any member is picked, peeking so that the client's own bytes stay in the
// socket for the pump, and its source becomes the session's client address (source_ip hashing,
// the header vigil sends on, logs). To a member (proxy_protocol): one header on each new
// connection, written before any client byte.
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "net/proxy_header.h"
#include "proxy/session.h"

namespace vigil::proxy {
namespace {

net::ProxyVersion version_of(model::ProxyProtocol p) {
  return p == model::ProxyProtocol::kV1 ? net::ProxyVersion::kV1 : net::ProxyVersion::kV2;
}

}  // namespace

void Session::read_proxy_header() {
  // The longest header we accept fits: one that is still incomplete after this many bytes is
  // refused by the parser, so a peek never has to grow.
  std::array<char, net::kMaxProxyHeaderIn> buf;  // NOLINT: filled by recv
  const ssize_t n = ::recv(client_.fd.get(), buf.data(), buf.size(), MSG_PEEK);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (n <= 0) {
    // Gone before a header: an upstream's own TCP check, say. Nothing to tell.
    close();
    return;
  }
  const net::ProxyHeader h = net::parse_proxy_header({buf.data(), static_cast<size_t>(n)});
  if (h.status == net::ProxyHeader::Status::kIncomplete) return;  // the next edge brings more
  if (h.status == net::ProxyHeader::Status::kInvalid) {
    listener_.stats->proxy_invalid.fetch_add(1, std::memory_order_relaxed);
    refuse_proxy_header(h.error);
    return;
  }
  // Takes the header alone out of the socket; the bytes after it are the client's.
  const ssize_t taken = ::recv(client_.fd.get(), buf.data(), h.length, 0);
  if (taken != static_cast<ssize_t>(h.length)) {
    close();
    return;
  }
  if (h.source) {  // none for LOCAL and UNKNOWN: the connection's own address stands
    const std::string_view ip = h.source->ip_bytes();
    client_ip_size_ = static_cast<uint8_t>(std::min(ip.size(), client_ip_.size()));
    std::copy_n(ip.data(), client_ip_size_, client_ip_.data());
    client_port_ = h.source->port();
  }
  client_.readable = true;  // the edge that brought the header may have brought more
  state_ = State::kConnecting;
  phase_deadline_ = {};
  connect_first();
}

void Session::refuse_proxy_header(std::string_view reason) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  net::SocketAddress peer;
  if (::getpeername(client_.fd.get(), reinterpret_cast<sockaddr*>(&ss), &len) == 0) {
    peer = net::SocketAddress::from_sockaddr(reinterpret_cast<sockaddr*>(&ss), len);
  }
  host_.proxy_header_refused(listener_.name, peer, reason);
  close();
}

// The destination is the address the client reached vigil on: the listener's own, or for a
// wildcard bind the one the kernel chose.
bool Session::send_proxy_header(const Side& member, model::ProxyProtocol version) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  net::SocketAddress local;
  if (::getsockname(client_.fd.get(), reinterpret_cast<sockaddr*>(&ss), &len) == 0) {
    local = net::SocketAddress::from_sockaddr(reinterpret_cast<sockaddr*>(&ss), len);
  }
  const net::SocketAddress client = client_address();
  std::array<char, net::kMaxProxyHeaderOut> out;  // NOLINT: filled by the encoder
  const size_t n = net::encode_proxy_header(version_of(version), &client, &local, out);
  // A new connection's send buffer is empty: a hundred bytes always fit, so a short write
  // means the socket failed.
  return ::send(member.fd.get(), out.data(), n, MSG_NOSIGNAL) == static_cast<ssize_t>(n);
}

}  // namespace vigil::proxy
