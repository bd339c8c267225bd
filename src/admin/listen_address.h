// The addresses of the admin server's TCP side: admin.listen's text as an endpoint, and who a
// connection's peer is, as the per-address cap and /login's throttle count it. Pure; any thread.
#pragma once

#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.h"

namespace vigil::admin {

// "127.0.0.1:8404", "[::1]:8404", "localhost:8404"; the error names the text and says why.
Result<boost::asio::ip::tcp::endpoint> parse_listen(std::string_view text);

// The IP address of a TCP peer that a generic acceptor gave as a generic endpoint; nothing when
// it is no IP endpoint.
std::optional<boost::asio::ip::address> ip_of(
    const boost::asio::generic::stream_protocol::endpoint& generic);

// The source /login's throttle counts: an IPv4 address, or an IPv6 address's /64, which one
// host usually holds whole (counting single IPv6 addresses would give it 2^64 tries).
std::string sign_in_source(const boost::asio::ip::address& peer);

}  // namespace vigil::admin
