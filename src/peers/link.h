// Link: one TCP connection of the peer sync (peers/wire.h), either way, on the control thread's
// io_context. It reads frames and hands each to its owner, writes what it is given in order,
// and says once when it is closed, by either side or for a broken frame; its owner decides
// what a frame means (daemon/peer_sync.h). Bounded: more than kMaxQueued bytes waiting to be
// written close it, and the owner syncs again from the start on the next connection.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <functional>
#include <memory>
#include <string>
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

  Link(boost::asio::ip::tcp::socket socket, Handlers handlers);
  // Starts reading.
  void start();
  // Queues `bytes` (whole frames) to be written.
  void send(const std::vector<uint8_t>& bytes);
  // Closes at once; no handler runs after this.
  void close();
  bool open() const { return open_; }
  std::string remote() const { return remote_; }

 private:
  void read();
  void write();
  void fail(const std::string& why);

  boost::asio::ip::tcp::socket socket_;
  Handlers handlers_;
  FrameReader reader_;
  std::array<uint8_t, 65536> in_{};
  std::vector<uint8_t> queued_;   // to be written after writing_
  std::vector<uint8_t> writing_;  // under an async_write
  bool open_ = true;
  std::string remote_;
};

}  // namespace vigil::peers
