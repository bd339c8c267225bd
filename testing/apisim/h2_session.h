// HTTP/2 sessions of the simulator, for clients that offered "h2" in ALPN (every Go client, so
// kubectl and client-go). Framing, HPACK, flow control and PING answers are libnghttp2's; this
// unit maps its streams onto the same routes as HTTP/1.1. One io_context thread, like session.cc.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include "testing/apisim/session.h"

namespace vigil::apisim {

// Serves one connection whose TLS handshake chose "h2", until the client leaves, the connection
// idles out, or ctx.close_all() ends it (watches end their streams, then GOAWAY and close).
// Requires: the handshake is done; live is registered in ctx and outlives the call.
boost::asio::awaitable<void> serve_h2(boost::asio::ssl::stream<boost::beast::tcp_stream>& stream,
                                      Live& live, ServerContext& ctx);

}  // namespace vigil::apisim
