#include "admin/listen_address.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>

namespace vigil::admin {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

Result<tcp::endpoint> parse_listen(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return fail(
        fmt::format("invalid admin listen address \"{}\": {} (like 127.0.0.1:8404 or "
                    "[::1]:8404)",
                    text, why));
  };
  std::string host;
  std::string_view port_text;
  if (text.starts_with('[')) {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || text.substr(close + 1, 1) != ":") {
      return bad("expected [ADDRESS]:PORT");
    }
    host = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad("no port");
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (host.find(':') != std::string::npos) return bad("put an IPv6 address in brackets");
  }
  if (host.empty()) return bad("no address; use 0.0.0.0 to listen on every address");
  if (host == "localhost") host = "127.0.0.1";
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      port > 65535) {
    return bad("bad port");
  }
  boost::system::error_code addr_ec;
  const asio::ip::address address = asio::ip::make_address(host, addr_ec);
  if (addr_ec) return bad("the address must be an IP address");
  return tcp::endpoint(address, static_cast<uint16_t>(port));
}

std::optional<asio::ip::address> ip_of(const asio::generic::stream_protocol::endpoint& generic) {
  const int family = generic.protocol().family();
  tcp::endpoint ep;
  if ((family != AF_INET && family != AF_INET6) || generic.size() > ep.capacity()) {
    return std::nullopt;
  }
  std::memcpy(ep.data(), generic.data(), generic.size());
  ep.resize(generic.size());
  return ep.address();
}

std::string sign_in_source(const asio::ip::address& peer) {
  if (peer.is_v6() && peer.to_v6().is_v4_mapped()) {
    return asio::ip::make_address_v4(asio::ip::v4_mapped, peer.to_v6()).to_string();
  }
  if (!peer.is_v6()) return peer.to_string();
  asio::ip::address_v6::bytes_type bytes = peer.to_v6().to_bytes();
  std::fill(bytes.begin() + 8, bytes.end(), 0);
  return asio::ip::address_v6(bytes).to_string() + "/64";
}

}  // namespace vigil::admin
