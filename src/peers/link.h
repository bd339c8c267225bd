// Link: one TCP connection of the peer sync (peers/wire.h), either way, on the control thread's
// io_context, plain or under mutual TLS (peers/tls.h). It reads frames and hands each to its
// owner, writes what it is given in order, and says once when it is closed, by either side, for
// a failed TLS handshake or for a broken frame; its owner decides what a frame means
// (daemon/peer_sync.h). Bounded: more than kMaxQueued bytes waiting to be written close it, and
// the owner syncs again from the start on the next connection.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "peers/wire.h"

namespace vigil::peers {

class Link : public std::enable_shared_from_this<Link> {
 public:
  static constexpr size_t kMaxQueued = 16 << 20;

  struct Handlers {
    // A frame; false closes the link (the owner refused it), with on_closed's reason.
    std::function<bool(const Frame&, std::string& why)> on_frame;
    std::function<void(const std::string& why)> on_closed;  // once, never from close()
  };

  // TLS for this link: none (a null context), or as the side that connected (`peer`: the name
  // the other's certificate must carry) or that accepted (the name comes with the hello).
  struct Tls {
    std::shared_ptr<boost::asio::ssl::context> context;
    bool connected = false;
    std::string peer;
  };

  Link(boost::asio::ip::tcp::socket socket, Handlers handlers, Tls tls);
  // Starts the TLS handshake if any, then reads; what is sent meanwhile waits for it.
  void start();
  // Queues `bytes` (whole frames) to be written.
  void send(const std::vector<uint8_t>& bytes);
  // Closes at once; no handler runs after this.
  void close();
  bool open() const { return open_; }
  std::string remote() const { return remote_; }
  boost::asio::ip::address remote_address() const { return remote_address_; }

  bool tls() const { return std::holds_alternative<TlsStream>(stream_); }
  // The TLS handshake failed because this side refused the other's certificate: signed by
  // another CA, none presented, or (connected) not naming the peer.
  bool certificate_refused() const { return certificate_refused_; }
  // Whether the other's certificate names `name` (peers/tls.h); false without TLS.
  bool certificate_names(std::string_view name);
  // 32 bytes exported from the TLS session (RFC 8446, 7.5), the same at both ends and at no
  // other connection's: the key of the hello's proof under TLS. Empty without TLS.
  std::string exported_key();

 private:
  using TlsStream = boost::asio::ssl::stream<boost::asio::ip::tcp::socket>;
  void handshake();
  void read();
  void write();
  void fail(const std::string& why);
  boost::asio::ip::tcp::socket& socket();

  std::variant<boost::asio::ip::tcp::socket, TlsStream> stream_;
  Handlers handlers_;
  bool connected_;  // this side connected: the TLS client
  FrameReader reader_;
  std::array<uint8_t, 65536> in_{};
  std::vector<uint8_t> queued_;   // to be written after writing_
  std::vector<uint8_t> writing_;  // under an async_write
  bool open_ = true;
  bool ready_ = false;  // the TLS handshake, if any, is done
  bool certificate_refused_ = false;
  std::string remote_;
  boost::asio::ip::address remote_address_;
};

}  // namespace vigil::peers
